/**
 * Deductible and out-of-pocket rules: the period amounts of every entry (plan level, service-level
 * override) and whether the deductible applies to the service. docs/benefit-rules.md, "Deductible and
 * out-of-pocket" and "deductibleApplies".
 */
import type { Findings } from './confidence.ts';
import { noteTier, type ProductContext } from './fields.ts';
import { allPairWith, type Candidate, PERIOD_WORDS, pairedWith, pairsWithAny } from './pairing.ts';
import type { BenefitRow } from './rows.ts';
import {
  type MatchedRow,
  type NetworkClass,
  pickValue,
  preferNetwork,
  pushTo,
  selectRows,
} from './select.ts';

/** EB06 values that make EB07 the amount for the benefit period (no EB06 reads the same way). */
const AMOUNT_TIMES = new Set<string | undefined>([undefined, '21', '22', '23', '25']);
const REMAINING = '29';
const YEAR_TO_DATE = '24';

export interface PeriodAmounts {
  individual: number | null;
  individualRemaining: number | null;
  family: number | null;
  familyRemaining: number | null;
  network: NetworkClass | undefined;
}

/** Field names for conflict messages, per label and level: built once, not per call. */
interface LevelLabels {
  amount: string;
  remaining: string;
  met: string;
  derived: string;
  assumed: string;
  scopedRemaining: string;
  /** e.g. "remaining amount paired with" (+ " calendar-year deductible"). */
  paired: string;
  label: string;
}

function levelLabels(label: string, level: 'individual' | 'family'): LevelLabels {
  const prefix = level === 'family' ? `family ${label}` : label;
  return {
    amount: prefix,
    remaining: `${prefix} remaining`,
    met: `${prefix} met year to date`,
    derived: `${prefix} remaining derived as amount − met year to date (EB06 24)`,
    assumed: `${label} row without coverage level (EB02) read as individual`,
    paired: level === 'family' ? 'family remaining amount paired with' : 'remaining amount paired with',
    label,
    scopedRemaining: `${prefix} remaining of a per-day, per-episode or lifetime amount not used`,
  };
}

const LABELS = {
  C: {
    label: 'deductible',
    individual: levelLabels('deductible', 'individual'),
    family: levelLabels('deductible', 'family'),
  },
  G: {
    label: 'out-of-pocket maximum',
    individual: levelLabels('out-of-pocket maximum', 'individual'),
    family: levelLabels('out-of-pocket maximum', 'family'),
  },
} as const;

const NO_AMOUNTS = Object.freeze({ amount: undefined, remaining: undefined });

/** The first row that gave the amount reported (amountRows(…)[0], without the array). */
function firstRowOf(amounts: Candidate[], amount: number): BenefitRow {
  if (amounts.length === 1) return amounts[0]!.row;
  for (const c of amounts) if (c.value === amount) return c.row;
  throw new Error('amounts.ts: the amount reported is none of its candidates');
}

/** The rows that gave the amount reported; the first candidate's row alone in the usual case (one row). */
function amountRows(amounts: Candidate[], amount: number): BenefitRow[] {
  if (amounts.length === 1) return [amounts[0]!.row];
  const rows: BenefitRow[] = [];
  for (const c of amounts) if (c.value === amount) rows.push(c.row);
  return rows;
}

/**
 * Reads amount / remaining / met-to-date for one coverage level from rows of one EB01 (C or G). The
 * remaining and met-to-date are taken only from rows paired with the amount reported (pairing.ts). A remaining
 * whose only partner is a time-scoped amount (per episode, lifetime…) is that amount's remaining: not used.
 */
function levelAmounts(
  rows: BenefitRow[],
  level: 'individual' | 'family',
  labels: LevelLabels,
  findings: Findings,
): { amount: number | undefined; remaining: number | undefined } {
  let amounts: Candidate[] | undefined;
  let remainders: Candidate[] | undefined;
  let mets: Candidate[] | undefined;
  let scoped: BenefitRow[] | undefined;
  let levelMissing = false;
  for (const row of rows) {
    if (row.level !== level) continue;
    if (row.levelMissing) levelMissing = true;
    if (row.timeScope !== undefined) {
      scoped = pushTo(scoped, row);
      continue;
    }
    if (AMOUNT_TIMES.has(row.time)) amounts = pushTo(amounts, { value: row.amount!, row });
    if (row.time === REMAINING) remainders = pushTo(remainders, { value: row.amount!, row });
    if (row.time === YEAR_TO_DATE) mets = pushTo(mets, { value: row.amount!, row });
  }
  if (amounts === undefined && remainders === undefined && mets === undefined) return NO_AMOUNTS;
  const amount = amounts && pickValue(labels.amount, amounts, findings);
  let remaining: number | undefined;
  let met: number | undefined;
  if (amount === undefined) {
    // No amount for the period: a remaining stands alone, unless it is a time-scoped amount's remaining.
    const alone = scoped === undefined ? remainders : remainders?.filter((c) => !pairsWithAny(scoped, c.row));
    if (alone?.length !== remainders?.length) findings.add('none', labels.scopedRemaining);
    remaining = alone?.length ? pickValue(labels.remaining, alone, findings) : undefined;
  } else {
    // Usual case: every remaining and met-to-date row pairs with the amount's first row, and the lists are
    // used as they are (no partner list or pairing result is made: this runs for each entry and level).
    const first = firstRowOf(amounts!, amount);
    const time = first.time;
    let pairedRemainders = remainders;
    let pairedMets = mets;
    let others = 0;
    if (!allPairWith(remainders, first) || !allPairWith(mets, first)) {
      const partners = amountRows(amounts!, amount);
      const paired = pairedWith(remainders, partners);
      const metsPaired = pairedWith(mets, partners);
      pairedRemainders = paired.rows;
      pairedMets = metsPaired.rows;
      others = paired.others + metsPaired.others;
    }
    remaining = pairedRemainders && pickValue(labels.remaining, pairedRemainders, findings);
    met = pairedMets && pickValue(labels.met, pairedMets, findings);
    if (others > 0) {
      const what = `${PERIOD_WORDS[time ?? ''] ?? 'benefit-period'} ${labels.label}`;
      findings.add(
        'none',
        pairedRemainders !== undefined || pairedMets !== undefined
          ? `${labels.paired} ${what}; remaining rows of another insurance type (EB04), network (EB12) or benefit period not used`
          : `no remaining row shares the ${what}'s insurance type (EB04), network (EB12) and benefit period: ${labels.remaining} not reported`,
      );
    }
  }
  if (remaining === undefined && amount !== undefined && met !== undefined) {
    remaining = Math.max(0, amount - met);
    findings.add('none', labels.derived);
  }
  if (amount !== undefined && remaining !== undefined && remaining > amount) {
    findings.conflict(
      `${labels.remaining} (${remaining}) exceeds ${labels.amount} (${amount}): not reported`,
    );
    remaining = undefined;
  }
  if ((amount !== undefined || remaining !== undefined) && level === 'individual' && levelMissing) {
    findings.add('coverageLevelAssumed', labels.assumed);
  }
  return { amount, remaining };
}

const NO_PERIOD_AMOUNTS: PeriodAmounts = Object.freeze({
  individual: null,
  individualRemaining: null,
  family: null,
  familyRemaining: null,
  network: undefined,
});

/**
 * Deductible (EB*C) or out-of-pocket (EB*G) amounts: from the plan-level rows, in-network before unstated;
 * out-of-network amounts only when the entry's cost sharing is itself out-of-network. A service-level row
 * with a non-zero amount overrides the plan's figure for that service (sandbox convention).
 */
export function periodAmounts(
  ctx: ProductContext,
  kind: 'C' | 'G',
  costShareNetwork: NetworkClass | undefined,
): PeriodAmounts {
  const labels = LABELS[kind];
  let planRows: MatchedRow[] | undefined;
  let serviceRows: MatchedRow[] | undefined;
  for (const m of ctx.matched) {
    if (m.row.code !== kind) continue;
    if (m.match.tier === 'plan') {
      if (m.row.amount !== undefined) planRows = pushTo(planRows, m);
    } else if ((m.row.amount ?? 0) > 0) serviceRows = pushTo(serviceRows, m);
  }
  if (planRows === undefined && serviceRows === undefined) return NO_PERIOD_AMOUNTS;
  let { rows, network } = preferNetwork(planRows ?? []);
  if (network === 'out' && costShareNetwork !== 'out') {
    ctx.findings.add('none', `${labels.label} returned only for out-of-network (EB12 N); not reported`);
    rows = [];
    network = undefined;
  }
  const plain = rows.map((m) => m.row);
  const individual = levelAmounts(plain, 'individual', labels.individual, ctx.findings);
  const family = levelAmounts(plain, 'family', labels.family, ctx.findings);
  const result: PeriodAmounts = {
    individual: individual.amount ?? null,
    individualRemaining: individual.remaining ?? null,
    family: family.amount ?? null,
    familyRemaining: family.remaining ?? null,
    // The network of the values reported: none when only time-scoped rows (never reported) were read.
    network:
      individual.amount !== undefined ||
      individual.remaining !== undefined ||
      family.amount !== undefined ||
      family.remaining !== undefined
        ? network
        : undefined,
  };
  if (serviceRows === undefined) return result;
  const service = selectRows(serviceRows);
  const overrides = service.rows.map((m) => m.row);
  const ind = levelAmounts(overrides, 'individual', labels.individual, ctx.findings);
  const fam = levelAmounts(overrides, 'family', labels.family, ctx.findings);
  ctx.findings.add('none', `${labels.label} from service-level row (${service.rows[0]!.match.code})`);
  return {
    individual: ind.amount ?? result.individual,
    individualRemaining: overrideRemaining(ind, result.individual, result.individualRemaining),
    family: fam.amount ?? result.family,
    familyRemaining: overrideRemaining(fam, result.family, result.familyRemaining),
    network: result.network ?? service.network,
  };
}

/**
 * The remaining that goes with a service-level override: its own; else the plan's when the override restates
 * the plan's amount (the same deductible) or gives no amount; never the plan's remaining beside another
 * amount, and never one larger than the amount.
 */
function overrideRemaining(
  override: { amount: number | undefined; remaining: number | undefined },
  planAmount: number | null,
  planRemaining: number | null,
): number | null {
  const amount = override.amount ?? planAmount;
  const remaining =
    override.remaining ??
    (override.amount === undefined || override.amount === planAmount ? planRemaining : null);
  return remaining !== null && amount !== null && remaining > amount ? null : remaining;
}

/**
 * deductibleApplies: a service-level EB*C for the period with 0 → false, with an amount → true (a remaining
 * of 0 says the deductible is met, not that it does not apply, so it is not evidence). No service-level row:
 * the plan-level deductible decides (an amount → true, all 0 → false), named as an assumption. Neither → null.
 */
export function deductibleApplies(ctx: ProductContext): boolean | null {
  let serviceRows: MatchedRow[] | undefined;
  let planRows: MatchedRow[] | undefined;
  for (const m of ctx.matched) {
    if (!informsDeductible(m.row)) continue;
    if (m.match.tier === 'plan') planRows = pushTo(planRows, m);
    else serviceRows = pushTo(serviceRows, m);
  }
  if (serviceRows !== undefined) {
    const service = selectRows(serviceRows);
    noteTier(ctx, 'deductibleApplies', service.rows[0]);
    const values: { value: boolean; row: BenefitRow }[] = [];
    for (const m of service.rows) values.push({ value: m.row.amount! > 0, row: m.row });
    const value = pickValue('deductibleApplies', values, ctx.findings, true);
    return value ?? null;
  }
  if (planRows === undefined) return null;
  const plan = preferNetwork(planRows);
  if (plan.network === 'out') return null;
  const applies = plan.rows.some((m) => m.row.amount! > 0);
  if (ctx.entryTier === 'plan') ctx.findings.add('none', 'deductibleApplies from the plan-level deductible');
  else
    ctx.findings.add(
      'deductibleAppliesAssumed',
      'deductibleApplies assumed from the plan-level deductible (no service-level EB*C)',
    );
  return applies;
}

/** An EB*C for the period, or a non-zero remaining: a remaining of 0 says the deductible is met, not that it does not apply. */
function informsDeductible(r: BenefitRow): boolean {
  return (
    r.code === 'C' &&
    r.amount !== undefined &&
    r.timeScope === undefined &&
    (AMOUNT_TIMES.has(r.time) || (r.time === REMAINING && r.amount > 0))
  );
}
