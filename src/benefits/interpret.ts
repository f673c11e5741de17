/**
 * The benefit interpreter: a pure function from the patient's EB rows (benefitsInformation, as the X12
 * parser produces them) to exactly one BenefitEntry per product service type, with confidence and
 * warnings. The rules are documented field by field in docs/benefit-rules.md; the modules are:
 *   rows.ts          one EB object → a typed row (numbers, network, level, visits, nutrition text)
 *   service-types.ts product → X12 service type codes, and how a row matches a product
 *   scope.ts         rows set aside from outpatient entries: Medicare Part A, other benefit periods
 *   select.ts        which matched rows a field is read from; conflicts
 *   fields.ts        copay/coinsurance, visit limits, authorization
 *   amounts.ts       deductible and out-of-pocket amounts, deductibleApplies
 *   coverage.ts      coverageStatus
 *   entry.ts         one product's entry
 *   confidence.ts    scoring table and check-level summary
 *   warnings.ts      warning codes
 *   other-coverage.ts  EB*R rows → otherCoverage and its order (coordination of benefits)
 */
import { type BenefitEntry, PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import { PENALTIES, round2, summarise } from './confidence.ts';
import { type BuiltEntry, buildEntry, type PlanState } from './entry.ts';
import { otherCoverageWarning, readOtherCoverage } from './other-coverage.ts';
import { ACTIVE_CODES, type BenefitRow, INACTIVE_CODES, readRow, USABLE_CODES } from './rows.ts';
import { normaliseDate, PART_A, type SetAsideRow, setAsideByProduct, stalePeriods } from './scope.ts';
import { pushTo, rowsByProduct } from './select.ts';
import type { Interpretation, InterpretInput } from './types.ts';
import { entryWarnings, NO_USABLE_BENEFITS, PLAN_INACTIVE, PLAN_STATUS_CONFLICT } from './warnings.ts';

/**
 * The parser's planActive decides (it may weigh dates); when it is undefined the 271's own plan-level rows
 * do, Medicare Part A rows aside (the products are outpatient services: scope.ts). A 271 with active and
 * inactive plan-level rows of the same insurance type (EB04), or where one of them names none, contradicts
 * itself and says so; Part A inactive beside Part B active is an ordinary Medicare answer, not a contradiction.
 */
function planState(rows: BenefitRow[], planActive: boolean | undefined): PlanState {
  let hasActive = false;
  let hasInactive = false;
  let outpatientActive = false;
  let outpatientInactive = false;
  for (const r of rows) {
    if (!r.planLevel) continue;
    if (ACTIVE_CODES.has(r.code)) {
      hasActive = true;
      if (r.insuranceType !== PART_A) outpatientActive = true;
    } else if (INACTIVE_CODES.has(r.code)) {
      hasInactive = true;
      if (r.insuranceType !== PART_A) outpatientInactive = true;
    }
  }
  const contradictory = hasActive && hasInactive && sameTypeContradiction(rows);
  const fromRows = contradictory || outpatientActive === outpatientInactive ? undefined : outpatientActive;
  return { active: planActive ?? fromRows, contradictory };
}

/** An active and an inactive plan-level row of the same EB04, or one of them without EB04 (rare: read only then). */
function sameTypeContradiction(rows: BenefitRow[]): boolean {
  for (const a of rows) {
    if (!a.planLevel || !ACTIVE_CODES.has(a.code)) continue;
    for (const i of rows) {
      if (!i.planLevel || !INACTIVE_CODES.has(i.code)) continue;
      if (
        a.insuranceType === i.insuranceType ||
        a.insuranceType === undefined ||
        i.insuranceType === undefined
      )
        return true;
    }
  }
  return false;
}

/**
 * The entries, then the other coverage: reported whatever the plan status (an inactive plan's 271 may still
 * name the payer that now covers the patient), with its warning last.
 */
export function interpretBenefits(input: InterpretInput): Interpretation {
  const interpretation = interpretEntries(input);
  const otherCoverage = readOtherCoverage(input.benefitsInformation);
  const warning = otherCoverageWarning(otherCoverage);
  if (!warning) return interpretation;
  return { ...interpretation, warnings: [...interpretation.warnings, warning], otherCoverage };
}

function interpretEntries(input: InterpretInput): Interpretation {
  const eb = input.benefitsInformation;
  const rows: BenefitRow[] = [];
  for (let k = 0; k < eb.length; k++) rows.push(readRow(eb[k]!, k));
  const plan = planState(rows, input.planActive);
  const planStatusKnown = plan.active !== undefined;
  const planStatusConsistent = !plan.contradictory;

  if (plan.active === false) {
    return {
      benefits: [],
      confidence: {
        score: round2(1 - (plan.contradictory ? PENALTIES.planStatusContradictory : 0)),
        criteria: summarise(planStatusKnown, planStatusConsistent, []).criteria,
      },
      warnings: plan.contradictory ? [PLAN_INACTIVE, PLAN_STATUS_CONFLICT] : [PLAN_INACTIVE],
    };
  }
  if (plan.active === undefined && plan.contradictory) {
    // Active and inactive rows, and nothing (no parser decision) to choose between them: undeterminable.
    return {
      benefits: [],
      confidence: summarise(planStatusKnown, planStatusConsistent, []),
      warnings: [PLAN_STATUS_CONFLICT],
    };
  }

  const stale = stalePeriods(rows, normaliseDate(input.asOf));
  const usable: BenefitRow[] = [];
  let setAside: SetAsideRow[] | undefined;
  for (const r of rows) {
    if (!USABLE_CODES.has(r.code)) continue;
    const staleNote = stale === undefined ? undefined : stale.get(r);
    if (r.insuranceType === PART_A) setAside = pushTo(setAside, { row: r, reason: 'partA' });
    else if (staleNote !== undefined) setAside = pushTo(setAside, { row: r, reason: staleNote });
    else usable.push(r);
  }
  const matched = rowsByProduct(usable);
  const asideByProduct = setAside === undefined ? undefined : setAsideByProduct(setAside);
  let anyMatched = false;
  for (const m of matched) if (m.length !== 0) anyMatched = true;
  if (!anyMatched) {
    return {
      benefits: [],
      confidence: summarise(planStatusKnown, planStatusConsistent, []),
      warnings: [NO_USABLE_BENEFITS],
    };
  }

  const requested = input.requestedServiceTypeCodes;
  const built: BuiltEntry[] = [];
  const benefits: BenefitEntry[] = [];
  for (let k = 0; k < PRODUCT_SERVICE_TYPES.length; k++) {
    const b = buildEntry(PRODUCT_SERVICE_TYPES[k]!, matched[k]!, plan, requested, asideByProduct?.[k]);
    built.push(b);
    benefits.push(b.entry);
  }
  const confidence = summarise(planStatusKnown, planStatusConsistent, built);
  const warnings = entryWarnings(built);
  if (plan.contradictory) warnings.unshift(PLAN_STATUS_CONFLICT);
  return { benefits, confidence, warnings };
}
