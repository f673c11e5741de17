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
import { PRODUCT_SERVICE_TYPES } from '../checks/schema.ts';
import { PENALTIES, round2, summarise } from './confidence.ts';
import type { Interpretation, InterpretInput } from './contract.ts';
import { buildEntry, type PlanState } from './entry.ts';
import { ACTIVE_CODES, type BenefitRow, INACTIVE_CODES, readRow, USABLE_CODES } from './rows.ts';
import { rowsByProduct } from './select.ts';
import { entryWarnings, NO_USABLE_BENEFITS, PLAN_INACTIVE, PLAN_STATUS_CONFLICT } from './warnings.ts';

/**
 * The parser's planActive decides (it may weigh dates); when it is undefined the 271's own plan-level rows
 * do. Either way, a 271 with both active and inactive plan-level rows contradicts itself and says so.
 */
export function planState(rows: BenefitRow[], planActive: boolean | undefined): PlanState {
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
  const rows = input.benefitsInformation.map(readRow);
  const plan = planState(rows, input.planActive);
  const statusCriteria = {
    planStatusKnown: plan.active !== undefined,
    planStatusConsistent: !plan.contradictory,
  };

  if (plan.active === false) {
    return {
      benefits: [],
      confidence: {
        score: round2(1 - (plan.contradictory ? PENALTIES.planStatusContradictory : 0)),
        criteria: { ...summarise({ ...statusCriteria, entries: [] }).criteria },
      },
      warnings: plan.contradictory ? [PLAN_INACTIVE, PLAN_STATUS_CONFLICT] : [PLAN_INACTIVE],
    };
  }
  if (plan.active === undefined && plan.contradictory) {
    // Active and inactive rows, and nothing (no parser decision) to choose between them: undeterminable.
    return {
      benefits: [],
      confidence: summarise({ ...statusCriteria, entries: [] }),
      warnings: [PLAN_STATUS_CONFLICT],
    };
  }

  const usable = rows.filter((r) => USABLE_CODES.has(r.code));
  const matched = rowsByProduct(usable);
  if (matched.every((m) => m.length === 0)) {
    return {
      benefits: [],
      confidence: summarise({ ...statusCriteria, entries: [] }),
      warnings: [NO_USABLE_BENEFITS],
    };
  }

  const built = PRODUCT_SERVICE_TYPES.map((product, k) =>
    buildEntry(product, matched[k]!, plan, input.requestedServiceTypeCodes),
  );
  const confidence = summarise({
    ...statusCriteria,
    entries: built.map((b) => ({
      entry: b.entry,
      tier: b.tier,
      conflicts: b.conflicts.length,
      networkKnown: b.entry.inNetwork !== null && b.entry.inNetwork !== undefined,
    })),
  });
  const warnings = [...(plan.contradictory ? [PLAN_STATUS_CONFLICT] : []), ...entryWarnings(built)];
  return { benefits: built.map((b) => b.entry), confidence, warnings };
}
