/**
 * Builds the one BenefitEntry of one product service type from the rows matched to it, with its confidence.
 */
import type { BenefitEntry, ProductServiceType } from '../contract/check-response.ts';
import { deductibleApplies, periodAmounts } from './amounts.ts';
import { Findings, hasCostSharing, type PenaltyName, scoreFindings } from './confidence.ts';
import { coverageStatus } from './coverage.ts';
import { authorization, costSharing, type ProductContext, visits } from './fields.ts';
import { type SetAsideRow, setAsideCriteria, timeScopeCriterion } from './scope.ts';
import type { MatchedRow, NetworkClass } from './select.ts';
import { type Match, type MatchTier, PRIMARY_CODE } from './service-types.ts';

export interface PlanState {
  /** true active, false inactive, undefined unknown (after reading the 271's own plan-level rows). */
  active: boolean | undefined;
  /** Both active (EB*1–5) and inactive (EB*6–8) plan-level rows are present. */
  contradictory: boolean;
}

export interface BuiltEntry {
  entry: BenefitEntry;
  tier: MatchTier;
  /** The match criterion of the entry, e.g. "derived from plan-level benefits (30)". */
  matchedBy: string;
  conflicts: string[];
}

function tierPenalty(match: Match): PenaltyName {
  if (match.rank === 0) return 'nutritionFromText';
  if (match.rank === 1) return 'nutritionAmbiguous';
  if (match.tier === 'related') return 'relatedServiceType';
  if (match.tier === 'general') return 'generalServiceType';
  if (match.tier === 'plan') return 'planLevel';
  return 'none';
}

const NULL_FIELDS = {
  inNetwork: null,
  copay: null,
  coinsurance: null,
  deductible: null,
  deductibleRemaining: null,
  familyDeductible: null,
  familyDeductibleRemaining: null,
  deductibleApplies: null,
  outOfPocketMax: null,
  outOfPocketRemaining: null,
  familyOutOfPocketMax: null,
  familyOutOfPocketRemaining: null,
  visitLimit: null,
  visitsUsed: null,
  authorizationRequired: null,
} as const satisfies Partial<BenefitEntry>;

const inNetworkOf = (network: NetworkClass | undefined) =>
  network === 'in' ? true : network === 'out' ? false : null;

/** `matched`: the usable rows matched to `product`, best rank first (select.ts rowsByProduct). */
export function buildEntry(
  product: ProductServiceType,
  matched: MatchedRow[],
  plan: PlanState,
  requestedServiceTypeCodes: string[],
  /** Rows that matched the product but were set aside (scope.ts): named in the criteria. */
  setAside?: readonly SetAsideRow[],
): BuiltEntry {
  const findings = new Findings();
  const best = matched[0];
  const entryTier: MatchTier = best?.match.tier ?? 'plan';
  const matchedBy =
    best?.match.criterion ?? 'derived from plan status only: no rows for this service type or the plan';
  if (best) findings.add(tierPenalty(best.match), matchedBy);
  else if (plan.active === true) findings.add('planLevel', matchedBy);
  if (plan.contradictory)
    findings.add('planStatusContradictory', 'the 271 has both active and inactive plan-level rows');
  const primary = PRIMARY_CODE[product];
  if (entryTier !== 'direct' && requestedServiceTypeCodes.includes(primary)) {
    findings.add('none', `${primary} was requested but the payer answered it only through fallback rows`);
  }

  // The same walk notes whether any row is time-scoped: most entries have none, and skip timeScopeCriterion.
  let timeScoped = false;
  for (const m of matched) {
    if (m.row.realigned) findings.add('elementsRealigned', `${m.row.realigned}: realigned (${m.match.code})`);
    if (m.row.timeScope !== undefined) timeScoped = true;
  }
  if (setAside !== undefined)
    for (const text of setAsideCriteria(setAside, matched)) findings.add('none', text);
  const ctx: ProductContext = { product, matched, entryTier, findings };
  const status = coverageStatus(ctx, plan.active);

  // The spec: a Not Covered entry carries no cost-sharing fields.
  if (status === 'Not Covered')
    return built({ serviceType: product, coverageStatus: status }, entryTier, matchedBy, findings);
  if (status === 'Not Found') {
    findings.add(
      'notFound',
      'no benefit rows for this service type or the plan, and the plan status is unknown',
    );
    return built(
      { serviceType: product, coverageStatus: status, ...NULL_FIELDS },
      entryTier,
      matchedBy,
      findings,
    );
  }

  const cost = costSharing(ctx);
  const deductible = periodAmounts(ctx, 'C', cost.network);
  const outOfPocket = periodAmounts(ctx, 'G', cost.network);
  const applies = deductibleApplies(ctx);
  const visitCounts = visits(ctx);
  const scoped = timeScoped ? timeScopeCriterion(matched) : undefined;
  if (scoped !== undefined) findings.add('none', scoped);
  const authorizationRequired = authorization(ctx);

  const unstated: string[] = [];
  if (cost.network === 'unknown') unstated.push('copay/coinsurance');
  if (visitCounts.network === 'unknown') unstated.push('visit limit');
  if (deductible.network === 'unknown') unstated.push('deductible');
  if (outOfPocket.network === 'unknown') unstated.push('out-of-pocket');
  if (unstated.length > 0)
    findings.add('networkUnknown', `network not stated (no EB12) for ${unstated.join(', ')}`);
  // The first group (in the order above) that was read from some network class gives the entry's.
  const network = cost.network ?? visitCounts.network ?? deductible.network ?? outOfPocket.network;

  const entry: BenefitEntry = {
    serviceType: product,
    coverageStatus: status,
    inNetwork: inNetworkOf(network),
    copay: cost.copay,
    coinsurance: cost.coinsurance,
    deductible: deductible.individual,
    deductibleRemaining: deductible.individualRemaining,
    familyDeductible: deductible.family,
    familyDeductibleRemaining: deductible.familyRemaining,
    deductibleApplies: applies,
    outOfPocketMax: outOfPocket.individual,
    outOfPocketRemaining: outOfPocket.individualRemaining,
    familyOutOfPocketMax: outOfPocket.family,
    familyOutOfPocketRemaining: outOfPocket.familyRemaining,
    visitLimit: visitCounts.visitLimit,
    visitsUsed: visitCounts.visitsUsed,
    authorizationRequired,
  };
  if (!hasCostSharing(entry)) findings.add('noCostSharing', 'no cost sharing returned');
  else if (entry.copay === null && entry.coinsurance === null) {
    findings.add('noCopayOrCoinsurance', 'no copay or coinsurance returned for this service type');
  }
  return built(entry, entryTier, matchedBy, findings);
}

/** The entry with its confidence last (the entry is freshly built, so the property is added in place). */
function built(entry: BenefitEntry, tier: MatchTier, matchedBy: string, findings: Findings): BuiltEntry {
  entry.confidence = scoreFindings(findings);
  return { entry, tier, matchedBy, conflicts: findings.conflicts };
}
