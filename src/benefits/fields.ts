/**
 * Per-field rules for copay, coinsurance, visit limits and authorization, read from the rows matched to one
 * product (amounts.ts has the deductible/out-of-pocket rules, coverage.ts the coverage status). Each rule
 * names its doubts in `findings` and is described field by field in docs/benefit-rules.md.
 */
import type { ProductServiceType } from '../contract/check-response.ts';
import type { Findings } from './confidence.ts';
import { ACTIVE_CODES, type BenefitRow, type VisitCounts } from './rows.ts';
import { type MatchedRow, type NetworkClass, pickValue, pushTo, selectRows } from './select.ts';
import { type MatchTier, TIER_ORDER } from './service-types.ts';

export interface ProductContext {
  product: ProductServiceType;
  /** Usable rows matched to the product, best rank first. */
  matched: MatchedRow[];
  /** The tier of the entry's best match; field groups from a worse tier are named. */
  entryTier: MatchTier;
  findings: Findings;
}

function whereFrom(m: MatchedRow): string {
  return m.match.tier === 'plan'
    ? 'plan-level benefits (30)'
    : `${m.match.tier} service type ${m.match.code}`;
}

/** Names a field group read from a worse tier than the entry's own match. */
export function noteTier(ctx: ProductContext, group: string, from: MatchedRow | undefined): void {
  if (from && TIER_ORDER[from.match.tier] > TIER_ORDER[ctx.entryTier]) {
    ctx.findings.add('fieldFromLowerTier', `${group} taken from ${whereFrom(from)}`);
  }
}

export interface CostSharing {
  copay: number | null;
  coinsurance: number | null;
  network: NetworkClass | undefined;
}

const NO_COST_SHARING: CostSharing = Object.freeze({ copay: null, coinsurance: null, network: undefined });

/**
 * Copay from EB*B (EB07 dollars), coinsurance from EB*A (EB08 fraction), from one rank and one network class;
 * time-scoped rows (per day, admission, lifetime, day range) are never either.
 */
export function costSharing(ctx: ProductContext): CostSharing {
  let candidates: MatchedRow[] | undefined;
  for (const m of ctx.matched) {
    // Per-day, per-admission, lifetime and day-range amounts are not a visit's cost sharing (scope.ts).
    if (m.row.timeScope !== undefined) continue;
    if (
      (m.row.code === 'B' && m.row.amount !== undefined) ||
      (m.row.code === 'A' && m.row.percent !== undefined)
    )
      candidates = pushTo(candidates, m);
  }
  if (candidates === undefined) return NO_COST_SHARING;
  const { rows, network } = selectRows(candidates);
  noteTier(ctx, 'copay/coinsurance', rows[0]);
  const copays: { value: number; row: BenefitRow }[] = [];
  const coinsurances: { value: number; row: BenefitRow }[] = [];
  let whole = false;
  for (const m of rows) {
    if (m.row.code === 'B') copays.push({ value: m.row.amount!, row: m.row });
    else {
      coinsurances.push({ value: m.row.percent!, row: m.row });
      if (m.row.percentWasWhole) whole = true;
    }
  }
  if (whole) ctx.findings.add('none', 'coinsurance sent as a whole percent (EB08 > 1); read as a fraction');
  if (network === 'out')
    ctx.findings.add('outOfNetworkOnly', 'only out-of-network (EB12 N) copay/coinsurance returned');
  return {
    copay: pickValue('copay', copays, ctx.findings) ?? null,
    coinsurance: pickValue('coinsurance', coinsurances, ctx.findings) ?? null,
    network,
  };
}

export interface Visits {
  visitLimit: number | null;
  visitsUsed: number | null;
  network: NetworkClass | undefined;
}

const VISIT_CODES = new Set([...ACTIVE_CODES, 'A', 'B', 'F']);
const NO_VISITS: Visits = Object.freeze({ visitLimit: null, visitsUsed: null, network: undefined });

/**
 * Visit limits: EB*F with EB09 VS (EB06 29 = remaining, otherwise the limit; EB09 99 = used), or an HSD VS
 * after the EB (HSD05 29 = remaining). visitsUsed = limit − remaining. A dollar amount on an EB*F is a dollar
 * cap, not a visit limit. Plan-level rows never give a service's visit limit.
 */
export function visits(ctx: ProductContext): Visits {
  let candidates: MatchedRow[] | undefined;
  for (const m of ctx.matched) {
    const v = m.row.visits;
    const noVisits = v.limit === undefined && v.remaining === undefined && v.used === undefined;
    if (m.match.tier === 'plan') continue;
    if (m.row.code === 'F' && m.row.amount !== undefined && noVisits) {
      ctx.findings.add(
        'none',
        `EB*F dollar limit (EB07 ${m.row.amount}) for ${m.match.code} is not a visit limit`,
      );
    }
    if (!noVisits && VISIT_CODES.has(m.row.code)) candidates = pushTo(candidates, m);
  }
  if (candidates === undefined) return NO_VISITS;
  const { rows, network } = selectRows(candidates);
  noteTier(ctx, 'visit limit', rows[0]);
  const limit = pickValue('visitLimit', visitValues(rows, 'limit'), ctx.findings);
  const remaining = pickValue('visits remaining', visitValues(rows, 'remaining'), ctx.findings);
  let used = pickValue('visitsUsed', visitValues(rows, 'used'), ctx.findings);
  if (used === undefined && limit !== undefined && remaining !== undefined) {
    used = limit - remaining;
    if (used < 0) {
      ctx.findings.conflict(
        `visits remaining (${remaining}) exceed the visit limit (${limit}): visitsUsed not reported`,
      );
      used = undefined;
    }
  }
  return { visitLimit: limit ?? null, visitsUsed: used ?? null, network };
}

function visitValues(rows: MatchedRow[], key: keyof VisitCounts): { value: number; row: BenefitRow }[] {
  const values: { value: number; row: BenefitRow }[] = [];
  for (const m of rows) {
    const value = m.row.visits[key];
    if (value !== undefined) values.push({ value, row: m.row });
  }
  return values;
}

const AUTH_CODES = new Set([...ACTIVE_CODES, 'A', 'B', 'F']);

/** EB11 Y → true, N → false, U or absent → null; from the best rank that says, preferring in-network rows. */
export function authorization(ctx: ProductContext): boolean | null {
  let candidates: MatchedRow[] | undefined;
  for (const m of ctx.matched) {
    if (
      m.row.auth !== undefined &&
      (AUTH_CODES.has(m.row.code) || (m.row.code === 'C' && m.match.tier !== 'plan'))
    )
      candidates = pushTo(candidates, m);
  }
  if (candidates === undefined) return null;
  const { rows } = selectRows(candidates);
  noteTier(ctx, 'authorization', rows[0]);
  const values: { value: boolean; row: BenefitRow }[] = [];
  for (const m of rows) values.push({ value: m.row.auth!, row: m.row });
  const value = pickValue('authorizationRequired', values, ctx.findings, true);
  return value ?? null;
}
