/**
 * Which X12 service type codes (EB03) feed each product service type, and how a 271 row is matched to a
 * product. The codes and their names are in docs/x12-codes.md ("Which codes the products read"); the order
 * of the codes is the order of preference. docs/benefit-rules.md has the same table for readers.
 */
import { PRODUCT_SERVICE_TYPES, type ProductServiceType } from '../contract/check-response.ts';
import type { BenefitRow } from './rows.ts';

/**
 * How closely a row speaks for a product: `direct` its own code (or, for nutrition, its own MSG text),
 * `related` a neighbouring code (AE physical medicine for PT), `general` an office/medical-care code that
 * says nothing about the product, `plan` the plan as a whole (30 or no EB03).
 */
export type MatchTier = 'direct' | 'related' | 'general' | 'plan';

export interface CodeRule {
  code: string;
  tier: MatchTier;
}

/** Product → EB03 codes in order of preference. Nutrition products also match by MSG text (see below). */
const SERVICE_TYPE_CODES: Record<ProductServiceType, readonly CodeRule[]> = {
  'Preventive Nutrition': [
    { code: '98', tier: 'general' },
    { code: 'BZ', tier: 'general' },
    { code: '81', tier: 'general' },
    { code: 'AN', tier: 'general' },
    { code: '1', tier: 'general' },
  ],
  'Medical Nutrition': [
    { code: '98', tier: 'general' },
    { code: '1', tier: 'general' },
  ],
  'Outpatient Physical Therapy': [
    { code: 'PT', tier: 'direct' },
    { code: 'AE', tier: 'related' },
    { code: 'AC', tier: 'related' },
    { code: 'A9', tier: 'related' },
  ],
  // A7, CE, CG, BB, BC and RT are inpatient/facility care and AI/AJ/AK substance use: not outpatient mental health.
  'Mental Health': [
    { code: 'MH', tier: 'direct' },
    { code: 'CF', tier: 'related' },
    { code: 'A8', tier: 'related' },
    { code: 'A4', tier: 'related' },
    { code: 'A6', tier: 'related' },
    { code: 'CH', tier: 'related' },
    { code: 'BD', tier: 'related' },
  ],
  'Occupational Therapy': [
    { code: 'AD', tier: 'direct' },
    { code: 'AC', tier: 'related' },
    { code: 'A9', tier: 'related' },
  ],
  // Medicare (HETS) reports the physical and speech therapy cap under AE and sends no AF row.
  'Speech Therapy': [
    { code: 'AF', tier: 'direct' },
    { code: 'AC', tier: 'related' },
    { code: 'A9', tier: 'related' },
    { code: 'AE', tier: 'related' },
  ],
  Chiropractic: [
    { code: '33', tier: 'direct' },
    { code: '34', tier: 'related' },
  ],
};

/** The code a 270 asks with first for each product (EQ01), to tell when a requested code was answered by a fallback. */
export const PRIMARY_CODE: Record<ProductServiceType, string> = {
  'Preventive Nutrition': '98',
  'Medical Nutrition': '98',
  'Outpatient Physical Therapy': 'PT',
  'Mental Health': 'MH',
  'Occupational Therapy': 'AD',
  'Speech Therapy': 'AF',
  Chiropractic: '33',
};

const CODE_NAMES: Record<string, string> = {
  '1': 'Medical Care',
  '30': 'Health Benefit Plan Coverage',
  '33': 'Chiropractic',
  '34': 'Chiropractic Office Visits',
  '81': 'Routine Physical',
  '98': 'Professional (Physician) Visit - Office',
  A4: 'Psychiatric',
  A6: 'Psychotherapy',
  A8: 'Psychiatric - Outpatient',
  A9: 'Rehabilitation',
  AC: 'Rehabilitation - Outpatient',
  AD: 'Occupational Therapy',
  AE: 'Physical Medicine',
  AF: 'Speech Therapy',
  AN: 'Routine Exam',
  BD: 'Cognitive Therapy',
  BZ: 'Physician Visit - Office: Well',
  CF: 'Mental Health Provider - Outpatient',
  CH: 'Mental Health Facility - Outpatient',
  MH: 'Mental Health',
  PT: 'Physical Therapy',
};

function codeName(code: string): string {
  const name = CODE_NAMES[code];
  return name ? `${code} ${name}` : code;
}

/** How one row matches one product. Lower `rank` is preferred; rows of equal rank are compared for conflicts. */
export interface Match {
  rank: number;
  tier: MatchTier;
  /** Human-readable reason, used as the entry's match criterion. */
  criterion: string;
  /** The matching EB03 code, or `30` for plan level. */
  code: string;
}

const PLAN_RANK = 1000;
const NUTRITION_PRODUCTS = new Set<ProductServiceType>(['Preventive Nutrition', 'Medical Nutrition']);

function isNutrition(product: ProductServiceType): boolean {
  return NUTRITION_PRODUCTS.has(product);
}

/** The Match of each code rule and of plan level, built once: they depend only on the product and rule. */
const RULE_MATCHES = new Map<ProductServiceType, readonly Match[]>(
  PRODUCT_SERVICE_TYPES.map((product) => [
    product,
    SERVICE_TYPE_CODES[product].map((rule, i) => ({
      rank: 10 + i,
      tier: rule.tier,
      code: rule.code,
      criterion:
        rule.tier === 'direct'
          ? `service type matched directly (${rule.code})`
          : rule.tier === 'related'
            ? `matched through related service type ${codeName(rule.code)}`
            : `matched through general service type ${codeName(rule.code)}, no nutrition text`,
    })),
  ]),
);
/** The match of every plan-level row: the worst rank, below every code rule and nutrition match. */
export const PLAN_MATCH: Match = {
  rank: PLAN_RANK,
  tier: 'plan',
  code: '30',
  criterion: 'derived from plan-level benefits (30)',
};

/** How every nutrition match's criterion starts (nutritionMatch below); such a match is direct. */
const NUTRITION_CRITERION_START = 'nutrition benefit ';

/** Every code rule's criterion and plan level's, with the tier of its match. */
const TIER_BY_CRITERION = new Map<string, MatchTier>([
  ...[...RULE_MATCHES.values()].flat().map((m): [string, MatchTier] => [m.criterion, m.tier]),
  [PLAN_MATCH.criterion, 'plan'],
]);

/**
 * The tier of the match an entry's criterion names (an entry's first confidence criterion is its match's),
 * for readers of a finished result such as the payer scorecard; undefined: not a match criterion.
 */
export function tierOfCriterion(text: string): MatchTier | undefined {
  return TIER_BY_CRITERION.get(text) ?? (text.startsWith(NUTRITION_CRITERION_START) ? 'direct' : undefined);
}

/** EB03 code → the products it feeds and the rule's position in each product's list (lower is preferred). */
const RULES_BY_CODE = new Map<string, { product: number; rule: number }[]>();
for (const [product, name] of PRODUCT_SERVICE_TYPES.entries()) {
  for (const [rule, { code }] of SERVICE_TYPE_CODES[name].entries()) {
    const list = RULES_BY_CODE.get(code) ?? [];
    list.push({ product, rule });
    RULES_BY_CODE.set(code, list);
  }
}
/** RULE_MATCHES by product index. */
const RULE_MATCH_LISTS = PRODUCT_SERVICE_TYPES.map((product) => RULE_MATCHES.get(product)!);
const NUTRITION_BY_INDEX = PRODUCT_SERVICE_TYPES.map(isNutrition);

/**
 * How the row matches each product, written into `into` (indexed like PRODUCT_SERVICE_TYPES): the product's
 * earliest rule whose code the row carries, else plan level; when the row names nutrition, the nutrition
 * products match by that alone. One pass over the row's EB03 codes instead of one search per product and
 * rule. Matches are shared between rows and calls: never mutate one.
 */
export function matchProducts(row: BenefitRow, into: (Match | undefined)[]): (Match | undefined)[] {
  const planMatch = row.planLevel ? PLAN_MATCH : undefined;
  for (let p = 0; p < PRODUCT_SERVICE_TYPES.length; p++) into[p] = planMatch;
  // A rule's match outranks plan level (rank 1000); among rules the earliest in the product's list wins.
  const codes = row.serviceTypeCodes;
  for (let k = 0; k < codes.length; k++) {
    const rules = RULES_BY_CODE.get(codes[k]!);
    if (rules === undefined) continue;
    for (let r = 0; r < rules.length; r++) {
      const { product, rule } = rules[r]!;
      const match = RULE_MATCH_LISTS[product]![rule]!;
      const current = into[product];
      if (current === undefined || match.rank < current.rank) into[product] = match;
    }
  }
  if (row.nutrition !== undefined) {
    for (let p = 0; p < PRODUCT_SERVICE_TYPES.length; p++) {
      if (NUTRITION_BY_INDEX[p]) into[p] = nutritionMatch(row, PRODUCT_SERVICE_TYPES[p]!);
    }
  }
  return into;
}

function nutritionMatch(row: BenefitRow, product: ProductServiceType): Match | undefined {
  const stc = row.serviceTypeCodes.join('^') || 'no EB03';
  if (row.nutrition === product) {
    return {
      rank: 0,
      tier: 'direct',
      code: stc,
      criterion: `${NUTRITION_CRITERION_START}identified from ${row.nutritionSource} (${stc})`,
    };
  }
  if (row.nutrition === 'either') {
    return {
      rank: 1,
      tier: 'direct',
      code: stc,
      criterion: `${NUTRITION_CRITERION_START}in ${row.nutritionSource} does not say preventive or medical (${stc})`,
    };
  }
  return undefined; // the other nutrition product's row
}

/** Tier order for "is this field from a worse tier than the entry's match". */
export const TIER_ORDER: Record<MatchTier, number> = { direct: 0, related: 1, general: 2, plan: 3 };
