/**
 * The plan's deductible and out-of-pocket maximum, individual and family, with what is left: amounts that
 * belong to the plan, not to a service type, so a person reads them once instead of once per service row.
 * Read off the plan-level 271 rows (EB*C deductible, EB*G out-of-pocket, service type 30 or none; EB06 23/22/21/25
 * the amount for the period, 29 what remains, 24 what is met so far), and when the answer carries no such
 * rows, off the entries if every entry states the same amounts (they were derived from the plan rows).
 */

import type {
  BenefitEntry,
  BenefitsInformation,
  EligibilityCheckResponse,
} from '../contract/check-response.ts';
import { isPlanLevel } from '../x12/plan.ts';

export interface AmountPair {
  total: number | null;
  remaining: number | null;
}

export interface PlanAmounts {
  deductible: { individual: AmountPair; family: AmountPair };
  outOfPocket: { individual: AmountPair; family: AmountPair };
  /** Whether the amounts are the in-network ones (EB12 Y or W), out-of-network ones (N), or not said. */
  network: 'in' | 'out' | 'unstated';
}

const PERIOD_TOTALS = new Set(['21', '22', '23', '25']);
const REMAINING = '29';
const MET_SO_FAR = '24';

const empty = (): AmountPair => ({ total: null, remaining: null });

function amount(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

function networkOf(row: BenefitsInformation): PlanAmounts['network'] {
  const c = row.inPlanNetworkIndicatorCode;
  return c === 'Y' || c === 'W' ? 'in' : c === 'N' ? 'out' : 'unstated';
}

function fromRows(rows: BenefitsInformation[]): PlanAmounts | undefined {
  const money = rows.filter(
    (r) => (r.code === 'C' || r.code === 'G') && isPlanLevel(r) && amount(r.benefitAmount) !== null,
  );
  if (!money.length) return undefined;
  // In-network amounts are what a front desk quotes; out-of-network ones only when there are no others.
  const preference: PlanAmounts['network'][] = ['in', 'unstated', 'out'];
  const network = preference.find((n) => money.some((r) => networkOf(r) === n)) ?? 'unstated';
  const chosen = money.filter((r) => networkOf(r) === network);
  const out: PlanAmounts = {
    deductible: { individual: empty(), family: empty() },
    outOfPocket: { individual: empty(), family: empty() },
    network,
  };
  const met: Partial<Record<string, number>> = {};
  for (const r of chosen) {
    const kind = r.code === 'C' ? out.deductible : out.outOfPocket;
    const level = r.coverageLevelCode === 'FAM' ? 'family' : 'individual';
    const pair = kind[level];
    const value = amount(r.benefitAmount)!;
    const q = r.timeQualifierCode ?? '';
    if (q === REMAINING) pair.remaining ??= value;
    else if (q === MET_SO_FAR) met[`${r.code}${level}`] = value;
    else if (PERIOD_TOTALS.has(q) || q === '') pair.total ??= value;
  }
  for (const [code, kind] of [
    ['C', out.deductible],
    ['G', out.outOfPocket],
  ] as const) {
    for (const level of ['individual', 'family'] as const) {
      const m = met[`${code}${level}`];
      const pair = kind[level];
      if (pair.remaining === null && m !== undefined && pair.total !== null) {
        pair.remaining = Math.max(pair.total - m, 0);
      }
    }
  }
  return out;
}

function fromEntries(entries: BenefitEntry[]): PlanAmounts | undefined {
  const first = entries[0];
  if (!first) return undefined;
  const key = (b: BenefitEntry) =>
    JSON.stringify([
      b.deductible,
      b.deductibleRemaining,
      b.familyDeductible,
      b.familyDeductibleRemaining,
      b.outOfPocketMax,
      b.outOfPocketRemaining,
      b.familyOutOfPocketMax,
      b.familyOutOfPocketRemaining,
    ]);
  if (!entries.every((b) => key(b) === key(first))) return undefined;
  const pair = (total?: number | null, remaining?: number | null): AmountPair => ({
    total: total ?? null,
    remaining: remaining ?? null,
  });
  const amounts: PlanAmounts = {
    deductible: {
      individual: pair(first.deductible, first.deductibleRemaining),
      family: pair(first.familyDeductible, first.familyDeductibleRemaining),
    },
    outOfPocket: {
      individual: pair(first.outOfPocketMax, first.outOfPocketRemaining),
      family: pair(first.familyOutOfPocketMax, first.familyOutOfPocketRemaining),
    },
    network: first.inNetwork === true ? 'in' : first.inNetwork === false ? 'out' : 'unstated',
  };
  return hasAny(amounts) ? amounts : undefined;
}

function hasAny(a: PlanAmounts): boolean {
  return [a.deductible.individual, a.deductible.family, a.outOfPocket.individual, a.outOfPocket.family].some(
    (p) => p.total !== null || p.remaining !== null,
  );
}

/** The plan-level amounts of a completed check, or undefined when the answer states none. */
export function planAmountsOf(body: EligibilityCheckResponse): PlanAmounts | undefined {
  return fromRows(body.benefitsInformation ?? []) ?? fromEntries(body.benefits ?? []);
}

/** Whether an entry's amounts are the plan's own (then the service table need not repeat them). */
export function entryRepeatsPlan(b: BenefitEntry, plan: PlanAmounts): boolean {
  const same = (x: number | null | undefined, y: number | null) => (x ?? null) === y;
  return (
    same(b.deductible, plan.deductible.individual.total) &&
    same(b.deductibleRemaining, plan.deductible.individual.remaining) &&
    same(b.familyDeductible, plan.deductible.family.total) &&
    same(b.familyDeductibleRemaining, plan.deductible.family.remaining) &&
    same(b.outOfPocketMax, plan.outOfPocket.individual.total) &&
    same(b.outOfPocketRemaining, plan.outOfPocket.individual.remaining) &&
    same(b.familyOutOfPocketMax, plan.outOfPocket.family.total) &&
    same(b.familyOutOfPocketRemaining, plan.outOfPocket.family.remaining)
  );
}
