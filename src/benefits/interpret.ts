/**
 * The benefit interpreter: a pure function from the patient's EB rows (benefitsInformation, as the X12
 * parser produces them) to exactly one BenefitEntry per product service type, with confidence and
 * warnings. The rules are documented field by field in docs/benefit-rules.md; the modules are:
 *   rows.ts          one EB object → a typed row (numbers, network, level, visits, nutrition text)
 *   service-types.ts product → X12 service type codes, and how a row matches a product
 *   select.ts        which matched rows a field is read from; conflicts
 *   fields.ts        copay/coinsurance, visit limits, authorization
 *   amounts.ts       deductible and out-of-pocket amounts, deductibleApplies
 *   coverage.ts      coverageStatus
 *   entry.ts         one product's entry
 *   confidence.ts    scoring table and check-level summary
 *   warnings.ts      warning codes
 */
import { type BenefitEntry, PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import { PENALTIES, round2, summarise } from './confidence.ts';
import { type BuiltEntry, buildEntry, type PlanState } from './entry.ts';
import { ACTIVE_CODES, type BenefitRow, INACTIVE_CODES, readRow, USABLE_CODES } from './rows.ts';
import { rowsByProduct } from './select.ts';
import type { Interpretation, InterpretInput } from './types.ts';
import { entryWarnings, NO_USABLE_BENEFITS, PLAN_INACTIVE, PLAN_STATUS_CONFLICT } from './warnings.ts';

/**
 * The parser's planActive decides (it may weigh dates); when it is undefined the 271's own plan-level rows
 * do. Either way, a 271 with both active and inactive plan-level rows contradicts itself and says so.
 */
function planState(rows: BenefitRow[], planActive: boolean | undefined): PlanState {
  let hasActive = false;
  let hasInactive = false;
  for (const r of rows) {
    if (!r.planLevel) continue;
    if (ACTIVE_CODES.has(r.code)) hasActive = true;
    else if (INACTIVE_CODES.has(r.code)) hasInactive = true;
  }
  const fromRows = hasActive === hasInactive ? undefined : hasActive;
  return { active: planActive ?? fromRows, contradictory: hasActive && hasInactive };
}

export function interpretBenefits(input: InterpretInput): Interpretation {
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

  const usable: BenefitRow[] = [];
  for (const r of rows) if (USABLE_CODES.has(r.code)) usable.push(r);
  const matched = rowsByProduct(usable);
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
    const b = buildEntry(PRODUCT_SERVICE_TYPES[k]!, matched[k]!, plan, requested);
    built.push(b);
    benefits.push(b.entry);
  }
  const confidence = summarise(planStatusKnown, planStatusConsistent, built);
  const warnings = entryWarnings(built);
  if (plan.contradictory) warnings.unshift(PLAN_STATUS_CONFLICT);
  return { benefits, confidence, warnings };
}
