/**
 * Confidence: every entry starts at 1 and loses a named penalty for each doubt the rules ran into; the
 * criteria are the human-readable reasons, so a reader can see why a score is what it is. The scoring table
 * is docs/benefit-rules.md "Scoring"; keep the two in step.
 */
import type { BenefitConfidence, BenefitEntry, CheckConfidence } from '../contract/check-response.ts';

export const PENALTIES = {
  /** Informational criterion: says what was done, costs nothing. */
  none: 0,
  /** Nutrition product recognised from MSG text or a procedure code rather than a service type code. */
  nutritionFromText: 0.05,
  /** Nutrition text that does not say preventive or medical: used for both products. */
  nutritionAmbiguous: 0.15,
  /** Matched through a neighbouring code (e.g. AE physical medicine for PT). */
  relatedServiceType: 0.15,
  /** Matched through an office-visit or medical-care code that says nothing specific (98, 1, BZ …). */
  generalServiceType: 0.25,
  /** Derived from plan-level (30 / no EB03) benefits. */
  planLevel: 0.35,
  /** One field group (copay/coinsurance, visits, authorization) came from a worse tier than the entry's match. */
  fieldFromLowerTier: 0.1,
  /** deductibleApplies assumed from the plan-level deductible (no service-level EB*C). */
  deductibleAppliesAssumed: 0.05,
  /** Deductible/out-of-pocket row without EB02, read as individual. */
  coverageLevelAssumed: 0.05,
  /** A row the entry is built from had its elements one place off and was realigned. */
  elementsRealigned: 0.05,
  /** The values used came from rows without EB12. */
  networkUnknown: 0.1,
  /** Only out-of-network (EB12 N) cost sharing was returned for the service. */
  outOfNetworkOnly: 0.1,
  /** Several rows of equal standing gave different values for one field (per field). */
  conflict: 0.15,
  /** No copay or coinsurance, but deductible or out-of-pocket amounts exist. */
  noCopayOrCoinsurance: 0.25,
  /** No cost sharing at all (copay, coinsurance, deductible, out-of-pocket). */
  noCostSharing: 0.5,
  /** Coverage inferred from cost-sharing rows; no active-coverage row and no plan status. */
  coverageInferred: 0.2,
  /** The 271 has both active and inactive plan-level rows. */
  planStatusContradictory: 0.2,
  /** Nothing at all for the service and the plan status is unknown. */
  notFound: 0.5,
} as const;

export type PenaltyName = keyof typeof PENALTIES;

/**
 * The reasons collected while one entry is built, in the order they were found; a text already listed is
 * not listed again. An entry has a handful, so a linear search beats hashing each (often freshly built) text.
 */
export class Findings {
  /** penalties[k] is the penalty of texts[k]. */
  readonly penalties: PenaltyName[] = [];
  readonly texts: string[] = [];
  readonly conflicts: string[] = [];

  add(penalty: PenaltyName, text: string): void {
    const texts = this.texts;
    for (let k = 0; k < texts.length; k++) if (texts[k] === text) return;
    texts.push(text);
    this.penalties.push(penalty);
  }

  conflict(text: string): void {
    this.conflicts.push(text);
    this.add('conflict', text);
  }

  has(penalty: PenaltyName): boolean {
    return this.penalties.includes(penalty);
  }
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export function scoreFindings(findings: Findings): BenefitConfidence {
  let lost = 0;
  const penalties = findings.penalties;
  for (let k = 0; k < penalties.length; k++) lost += PENALTIES[penalties[k]!];
  // Scored once, when the entry is done: the criteria are the collector's texts themselves.
  return { score: round2(Math.min(1, Math.max(0, 1 - lost))), criteria: findings.texts };
}

const known = (value: number | null | undefined) => value !== null && value !== undefined;

/** Any of copay, coinsurance, deductible(s) and out-of-pocket amounts (read by name: a keyed loop is slow here). */
export function hasCostSharing(entry: BenefitEntry): boolean {
  return (
    known(entry.copay) ||
    known(entry.coinsurance) ||
    known(entry.deductible) ||
    known(entry.deductibleRemaining) ||
    known(entry.familyDeductible) ||
    known(entry.familyDeductibleRemaining) ||
    known(entry.outOfPocketMax) ||
    known(entry.outOfPocketRemaining) ||
    known(entry.familyOutOfPocketMax) ||
    known(entry.familyOutOfPocketRemaining)
  );
}

/** Per-entry facts the interpreter gathered (entry.ts BuiltEntry has this shape). */
export interface EntryFacts {
  entry: BenefitEntry;
  tier: string;
  conflicts: readonly string[];
}

/**
 * Check-level summary: score = mean of the entry scores (two decimals), so one weak entry lowers it without
 * hiding that the others are sound; the criteria say which of the named properties hold. An entry's network
 * is known when its inNetwork is true or false.
 */
export function summarise(
  planStatusKnown: boolean,
  planStatusConsistent: boolean,
  entries: readonly EntryFacts[],
): CheckConfidence {
  let sum = 0;
  let scored = 0;
  let allDirect = entries.length > 0;
  let costSharingReturned = false;
  let networkKnown = entries.length > 0;
  let noConflicts = true;
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]!;
    const score = e.entry.confidence?.score;
    if (typeof score === 'number') {
      sum += score;
      scored++;
    }
    if (e.tier !== 'direct') allDirect = false;
    if (e.conflicts.length !== 0) noConflicts = false;
    if (e.entry.coverageStatus !== 'Active Coverage') continue;
    if (!costSharingReturned && hasCostSharing(e.entry)) costSharingReturned = true;
    if (e.entry.inNetwork === null || e.entry.inNetwork === undefined) networkKnown = false;
  }
  return {
    score: scored === 0 ? null : round2(sum / scored),
    criteria: {
      planStatusKnown,
      planStatusConsistent,
      benefitsDetermined: entries.length > 0,
      allServiceTypesMatchedDirectly: allDirect,
      costSharingReturned,
      networkKnown,
      noConflicts,
    },
  };
}
