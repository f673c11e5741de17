/**
 * What changed in a patient's coverage between two completed checks (issue 17 section 3): pure, two result
 * bodies in, the list of changes out, in a fixed order (plan, then service types in product order).
 *
 * Only changes a front desk acts on are reported, and only where both answers say something: a value one
 * of the two answers leaves out is unknown, not changed. So when a plan ends, the 271 usually drops its
 * name and benefits: that is one PLAN_STATUS change, not a plan name change plus seven coverage changes.
 * Amounts are reported only when they reach a threshold (a deductible or out-of-pocket maximum met, visits
 * used up), not whenever they move: a deductible paid down by one visit is not news.
 */
import type {
  BenefitEntry,
  EligibilityCheckResponse,
  ProductServiceType,
} from '../contract/check-response.ts';
import { PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import type { CoverageChange } from '../contract/webhook-events.ts';

type Result = Pick<
  EligibilityCheckResponse,
  'planActive' | 'planInformation' | 'providerNetwork' | 'benefits'
>;

const known = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** A text value compared loosely: payers differ in case and spacing from one answer to the next. */
const sameText = (a: string, b: string) =>
  a.trim().replace(/\s+/g, ' ').toUpperCase() === b.trim().replace(/\s+/g, ' ').toUpperCase();

/** Remaining amounts whose reaching 0 means "met" (individual and family, deductible and out-of-pocket). */
const MET_FIELDS = [
  ['DEDUCTIBLE_MET', 'deductibleRemaining'],
  ['DEDUCTIBLE_MET', 'familyDeductibleRemaining'],
  ['OUT_OF_POCKET_MET', 'outOfPocketRemaining'],
  ['OUT_OF_POCKET_MET', 'familyOutOfPocketRemaining'],
] as const;

export function coverageChanges(before: Result, after: Result): CoverageChange[] {
  const changes: CoverageChange[] = [];
  if (known(before.planActive) && known(after.planActive) && before.planActive !== after.planActive) {
    changes.push({
      kind: 'PLAN_STATUS',
      field: 'planActive',
      before: before.planActive,
      after: after.planActive,
    });
  }
  const text = (kind: CoverageChange['kind'], field: string, a?: string, b?: string) => {
    if (known(a) && known(b) && a.trim() && b.trim() && !sameText(a, b)) {
      changes.push({ kind, field, before: a, after: b });
    }
  };
  text(
    'PLAN_NAME',
    'planInformation.planName',
    before.planInformation?.planName,
    after.planInformation?.planName,
  );
  text(
    'GROUP_NUMBER',
    'planInformation.groupNumber',
    before.planInformation?.groupNumber,
    after.planInformation?.groupNumber,
  );
  text(
    'NETWORK_STATUS',
    'providerNetwork.status',
    before.providerNetwork?.status,
    after.providerNetwork?.status,
  );
  changes.push(...planAmountChanges(before.benefits ?? [], after.benefits ?? []));
  const earlier = byServiceType(before.benefits ?? []);
  const later = byServiceType(after.benefits ?? []);
  for (const serviceType of PRODUCT_SERVICE_TYPES) {
    const a = earlier.get(serviceType);
    const b = later.get(serviceType);
    if (a && b) changes.push(...entryChanges(serviceType, a, b));
  }
  return changes;
}

function byServiceType(entries: BenefitEntry[]): Map<ProductServiceType, BenefitEntry> {
  const map = new Map<ProductServiceType, BenefitEntry>();
  // The interpreter gives one entry per service type; should an answer hold two, the first one counts.
  for (const e of entries) if (!map.has(e.serviceType)) map.set(e.serviceType, e);
  return map;
}

/**
 * Deductible and out-of-pocket amounts belong to the plan, and every entry repeats them: compared once,
 * on the first service type (in product order) whose entry states the amount in both answers.
 */
function planAmountChanges(before: BenefitEntry[], after: BenefitEntry[]): CoverageChange[] {
  const earlier = byServiceType(before);
  const later = byServiceType(after);
  const changes: CoverageChange[] = [];
  for (const [kind, field] of MET_FIELDS) {
    for (const serviceType of PRODUCT_SERVICE_TYPES) {
      const a = earlier.get(serviceType)?.[field];
      const b = later.get(serviceType)?.[field];
      if (!known(a) || !known(b)) continue;
      if (a > 0 && b <= 0) changes.push({ kind, field, before: a, after: b });
      break;
    }
  }
  return changes;
}

function entryChanges(serviceType: ProductServiceType, a: BenefitEntry, b: BenefitEntry): CoverageChange[] {
  const changes: CoverageChange[] = [];
  if (known(a.coverageStatus) && known(b.coverageStatus) && a.coverageStatus !== b.coverageStatus) {
    changes.push({
      kind: 'COVERAGE_STATUS',
      field: 'coverageStatus',
      serviceType,
      before: a.coverageStatus,
      after: b.coverageStatus,
    });
  }
  const limit = b.visitLimit;
  if (known(limit) && known(b.visitsUsed) && known(a.visitsUsed) && b.visitsUsed >= limit) {
    // "Exhausted" is news only if there were visits left before (under the earlier answer's own limit).
    const earlierLimit = a.visitLimit ?? limit;
    if (a.visitsUsed < earlierLimit) {
      changes.push({
        kind: 'VISITS_EXHAUSTED',
        field: 'visitsUsed',
        serviceType,
        before: a.visitsUsed,
        after: b.visitsUsed,
        visitLimit: limit,
      });
    }
  }
  return changes;
}

/** One line per change for a person (the portal), e.g. "Outpatient Physical Therapy: visits used up (20 of 20)". */
export function describeCoverageChange(c: CoverageChange): string {
  const value = (v: CoverageChange['before']) => (v === null ? 'none' : String(v));
  const money = (v: CoverageChange['before']) =>
    typeof v === 'number' ? `$${v.toLocaleString('en-US')}` : value(v);
  const family = c.field.startsWith('family') ? 'family ' : '';
  switch (c.kind) {
    case 'PLAN_STATUS':
      return c.after === true ? 'Plan is active again' : 'Plan is no longer active';
    case 'PLAN_NAME':
      return `Plan changed from ${value(c.before)} to ${value(c.after)}`;
    case 'GROUP_NUMBER':
      return `Group number changed from ${value(c.before)} to ${value(c.after)}`;
    case 'NETWORK_STATUS':
      return `Network status changed from ${value(c.before)} to ${value(c.after)}`;
    case 'COVERAGE_STATUS':
      return `${c.serviceType}: ${value(c.before)} → ${value(c.after)}`;
    case 'DEDUCTIBLE_MET':
      return `The ${family}deductible is met (${money(c.before)} remaining before, ${money(c.after)} now)`;
    case 'OUT_OF_POCKET_MET':
      return `The ${family}out-of-pocket maximum is met (${money(c.before)} remaining before, ${money(c.after)} now)`;
    case 'VISITS_EXHAUSTED':
      return `${c.serviceType}: visits used up (${value(c.after)} of ${c.visitLimit ?? '?'}; ${value(c.before)} before)`;
  }
}
