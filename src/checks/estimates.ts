/** A finished body with its estimates (docs/estimates.md), worked out when the check completes. */
import type { EligibilityCheckResponse } from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import { estimateCharges } from '../estimates/estimate.ts';

/**
 * The body with `estimates` and `estimateTotal` for these charges (none: without them), computed from the
 * body's own benefits: the estimate is stored with the result and sent with it.
 */
export function withEstimates(
  body: EligibilityCheckResponse,
  charges: readonly PricedCharge[] | null | undefined,
): EligibilityCheckResponse {
  const { estimates: _e, estimateTotal: _t, ...rest } = body;
  if (!charges?.length || body.status !== 'COMPLETED') return rest;
  return { ...rest, ...estimateCharges(body, charges) };
}
