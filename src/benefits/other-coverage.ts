/**
 * Coordination of benefits: the other coverage a 271 reports (EB*R "Other or Additional Payer" rows with
 * their REF, DTP, MSG and 2120C entities) as `otherCoverage`, each with the other payer's place in the
 * order of payment. The order rules are docs/benefit-rules.md section 8; they are applied in that order and
 * the first that speaks decides (`orderBasis` names it). Pure: rows in, data out.
 */
import type {
  BenefitsInformation,
  BenefitsRelatedEntity,
  OtherCoverage,
  Warning,
} from '../contract/check-response.ts';

type Order = OtherCoverage['order'];

const OTHER_PAYER = 'R';

/** 2120C NM101 codes that say the named payer's place outright. */
const ORDER_BY_ENTITY: Readonly<Record<string, Order>> = {
  PRP: 'PRIMARY',
  SEP: 'SECONDARY',
  TTP: 'TERTIARY',
};

/** 2120C NM101 codes that name the other coverage's payer or plan (the organisation, not a person or provider). */
const PAYER_ENTITIES = new Set(['PR', 'PRP', 'SEP', 'TTP', 'P4', 'Y2', '2B', 'P5', 'GW', '1I']);

/** NM108 qualifiers of a payer's id (NM109): payer id, CMS plan id, NAIC code, tax id. */
const PAYER_ID_QUALIFIERS = new Set(['PI', 'XV', 'NI', 'FI', '24', '46']);

/**
 * EB04 Medicare Secondary Payer types: Medicare pays second to the coverage the row names (working aged,
 * ESRD coordination period, no-fault, workers' compensation, federal agency, black lung, VA, disabled with
 * a large group plan, other liability).
 */
export const MSP_INSURANCE_TYPES: ReadonlySet<string> = new Set([
  '12',
  '13',
  '14',
  '15',
  '16',
  '41',
  '42',
  '43',
  '47',
]);

/** EB04 types that are supplements: they pay after the coverage they supplement. */
const SUPPLEMENT_TYPES = new Set(['SP', 'MH', 'MI']);
const MEDICARE_PRIMARY = 'MP';
const MEDICAID = 'MC';

/** REF keys (benefitsAdditionalInformation) that hold the member's id with the other payer, best first. */
const MEMBER_ID_KEYS = [
  'memberId',
  'insurancePolicyNumber',
  'hicNumber',
  'medicaidRecipientIdNumber',
] as const;
const GROUP_KEYS = ['groupNumber', 'groupOrPolicyNumber'] as const;

function firstOf(record: Record<string, string> | undefined, keys: readonly string[]): string | undefined {
  if (!record) return undefined;
  for (const k of keys) if (record[k]) return record[k];
  return undefined;
}

/** The other payer's place as a message states it, or undefined when the text does not say one place. */
function orderFromText(texts: string[]): { order: Order; basis: string } | undefined {
  const text = texts.join(' ').toUpperCase();
  if (!text) return undefined;
  const ours = /\b(?:THIS|OUR) (?:PLAN|PAYER|COVERAGE|POLICY) IS (PRIMARY|SECONDARY)\b/.exec(text);
  if (ours) {
    const order: Order = ours[1] === 'PRIMARY' ? 'SECONDARY' : 'PRIMARY';
    return { order, basis: `MSG says this plan is ${ours[1]!.toLowerCase()}` };
  }
  // "primary care" (a physician, not a payer) is not an order.
  const named = ['PRIMARY', 'SECONDARY', 'TERTIARY'].filter((w) =>
    new RegExp(`\\b${w}\\b(?! CARE)`).test(text),
  );
  if (named.length !== 1) return undefined;
  return { order: named[0] as Order, basis: `MSG names the other payer ${named[0]!.toLowerCase()}` };
}

/** What this plan is, as far as the order rules need it: the insurance types of its active rows. */
export interface ThisPlan {
  insuranceTypes: ReadonlySet<string>;
}

export function thisPlanOf(rows: readonly BenefitsInformation[]): ThisPlan {
  const insuranceTypes = new Set<string>();
  for (const r of rows) {
    if (r.code && /^[1-5]$/.test(r.code) && r.insuranceTypeCode) insuranceTypes.add(r.insuranceTypeCode);
  }
  return { insuranceTypes };
}

/** The order rules 1-7 of docs/benefit-rules.md section 8: the first that speaks decides. */
function orderOf(
  entities: readonly BenefitsRelatedEntity[],
  row: BenefitsInformation,
  plan: ThisPlan,
): { order: Order; basis: string } {
  for (const e of entities) {
    const order = e.entityIdentifierCode ? ORDER_BY_ENTITY[e.entityIdentifierCode] : undefined;
    if (order) return { order, basis: `2120C NM101 ${e.entityIdentifierCode} (${e.entityIdentifier})` };
  }
  const type = row.insuranceTypeCode;
  if (type && MSP_INSURANCE_TYPES.has(type))
    return {
      order: 'PRIMARY',
      basis: `EB04 ${type}: Medicare Secondary Payer, the other coverage pays first`,
    };
  if (type === MEDICARE_PRIMARY) return { order: 'PRIMARY', basis: 'EB04 MP (Medicare Primary)' };
  if (type && SUPPLEMENT_TYPES.has(type))
    return { order: 'SECONDARY', basis: `EB04 ${type}: a supplement pays after the coverage it supplements` };
  const stated = orderFromText((row.additionalInformation ?? []).flatMap((m) => m.description ?? []));
  if (stated) return stated;
  if (plan.insuranceTypes.has(MEDICAID) && type !== MEDICAID)
    return { order: 'PRIMARY', basis: 'this plan is Medicaid (EB04 MC), the payer of last resort' };
  return { order: 'UNKNOWN', basis: 'the 271 does not say which pays first' };
}

/** One EB*R row as other coverage (before rows naming one coverage twice are joined). */
function coverageOf(row: BenefitsInformation, plan: ThisPlan): OtherCoverage {
  const entities = row.benefitsRelatedEntities ?? [];
  const payer = entities.find((e) => e.entityIdentifierCode && PAYER_ENTITIES.has(e.entityIdentifierCode));
  const insured = entities.find((e) => e.entityIdentifierCode === 'IL');
  const refs = row.benefitsAdditionalInformation;
  const insuredId =
    insured?.entityIdentificationCode === 'MI' ? insured.entityIdentificationValue : undefined;
  const payerId =
    payer?.entityIdentificationCode && PAYER_ID_QUALIFIERS.has(payer.entityIdentificationCode)
      ? payer.entityIdentificationValue
      : undefined;
  const { order, basis } = orderOf(entities, row, plan);
  return inOrder({
    payerName: payer?.entityName,
    payerId,
    memberId: insuredId ?? firstOf(refs, MEMBER_ID_KEYS),
    groupNumber: firstOf(refs, GROUP_KEYS),
    insuranceTypeCode: row.insuranceTypeCode,
    insuranceType: row.insuranceType,
    planCoverage: row.planCoverage,
    serviceTypeCodes: row.serviceTypeCodes?.length ? row.serviceTypeCodes : undefined,
    order,
    orderBasis: basis,
    dates:
      row.benefitsDateInformation && Object.keys(row.benefitsDateInformation).length
        ? row.benefitsDateInformation
        : undefined,
  });
}

/** The contract's key order, without the fields the 271 did not fill. */
function inOrder(c: OtherCoverage): OtherCoverage {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (c[key] !== undefined) out[key] = c[key];
  return out as OtherCoverage;
}

const KEY_ORDER = [
  'payerName',
  'payerId',
  'memberId',
  'groupNumber',
  'insuranceTypeCode',
  'insuranceType',
  'planCoverage',
  'serviceTypeCodes',
  'order',
  'orderBasis',
  'dates',
] as const satisfies readonly (keyof OtherCoverage)[];

/** The row's elements and identifiers that must agree for two rows to describe one coverage. */
function sameCoverageKey(row: BenefitsInformation): string {
  return JSON.stringify([
    row.coverageLevelCode,
    row.serviceTypeCodes,
    row.insuranceTypeCode,
    row.planCoverage,
    row.benefitsAdditionalInformation,
    row.benefitsDateInformation,
  ]);
}

/**
 * Two consecutive EB*R rows alike in EB02-EB05, REF and DTP, one naming the payer and the other the
 * insured (TMHP's Medicaid 271 does this), are one coverage: the second adds what the first lacks.
 */
function joined(first: OtherCoverage, second: OtherCoverage): OtherCoverage | undefined {
  if (first.payerName && second.payerName) return undefined;
  if (first.memberId && second.memberId && first.memberId !== second.memberId) return undefined;
  const order = first.order === 'UNKNOWN' ? { order: second.order, orderBasis: second.orderBasis } : {};
  return inOrder({ ...second, ...first, ...order });
}

/** The other coverage of the patient's EB rows, in the 271's order, the same coverage listed once. */
export function readOtherCoverage(rows: readonly BenefitsInformation[]): OtherCoverage[] {
  const plan = thisPlanOf(rows);
  const out: OtherCoverage[] = [];
  const seen = new Set<string>();
  let previousKey: string | undefined;
  for (const row of rows) {
    if (row.code !== OTHER_PAYER) {
      previousKey = undefined;
      continue;
    }
    const key = sameCoverageKey(row);
    const coverage = coverageOf(row, plan);
    const one = key === previousKey && out.length > 0 ? joined(out[out.length - 1]!, coverage) : undefined;
    if (one) out[out.length - 1] = one;
    else out.push(coverage);
    previousKey = key;
  }
  // A payer asked one 270 per code answers the same EB*R in every 271 (merge271 keeps each).
  return out.filter((c) => {
    const id = JSON.stringify(c);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function named(c: OtherCoverage): string {
  return c.payerName ?? c.insuranceType ?? c.planCoverage ?? 'another payer';
}

/**
 * OTHER_COVERAGE (listed in warnings.ts): the other coverages and their order; payer names and codes, never
 * member data.
 */
export function otherCoverageWarning(coverage: readonly OtherCoverage[]): Warning | undefined {
  if (coverage.length === 0) return undefined;
  const list = coverage.map((c) => `${named(c)} (${c.order.toLowerCase()})`).join('; ');
  const primary = coverage.some((c) => c.order === 'PRIMARY');
  const advice = primary
    ? 'another payer pays first: bill it before this plan'
    : 'coordinate benefits before billing';
  return {
    code: 'OTHER_COVERAGE',
    description: `The payer reports other coverage (EB*R): ${list}; ${advice}.`,
  };
}
