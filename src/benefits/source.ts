/**
 * Where a finished check's product service types came from, for the payer scorecard: the payer's rows for
 * each service type, the plan-level (30) fallback, or nothing. Read from the result body alone (an entry's
 * first confidence criterion names its match, entry.ts), so it also classifies results stored earlier.
 */
import type { BenefitEntry } from '../contract/check-response.ts';
import { tierOfCriterion } from './service-types.ts';

/**
 * - `payer-rows`: at least one product came from rows for its service type and none needed the plan-level rows;
 * - `plan-fallback`: at least one product was derived from the plan-level (30) rows;
 * - `none`: no product came from any row (no usable benefits, or every product from the plan status only).
 */
export type BenefitSource = 'payer-rows' | 'plan-fallback' | 'none';

/** What `benefitSource` reads of a result (an EligibilityCheckResponse is one). */
export interface SourcedResult {
  status?: string;
  planActive?: boolean;
  benefits?: readonly BenefitEntry[];
}

/** One entry's source; `none` when it was built from no row (plan status only, not found, not covered). */
export function entrySource(entry: BenefitEntry): BenefitSource {
  const first = entry.confidence?.criteria[0];
  const tier = first === undefined ? undefined : tierOfCriterion(first);
  if (tier === undefined) return 'none';
  return tier === 'plan' ? 'plan-fallback' : 'payer-rows';
}

/**
 * The check's source; undefined for a check that is not COMPLETED, or whose plan is inactive (the payer
 * answered, and there is nothing for service types to come from: counting it as `none` would blame the payer).
 */
export function benefitSource(result: SourcedResult): BenefitSource | undefined {
  if (result.status !== 'COMPLETED' || result.planActive === false) return undefined;
  let fromRows = false;
  for (const entry of result.benefits ?? []) {
    const source = entrySource(entry);
    if (source === 'plan-fallback') return 'plan-fallback';
    if (source === 'payer-rows') fromRows = true;
  }
  return fromRows ? 'payer-rows' : 'none';
}
