/** A stored check as the FHIR face reads it: its CoverageEligibilityResponse, once it is finished. */
import type { CoverageEligibilityResponse } from '@medplum/fhirtypes';
import type { EligibilityCheckResponse } from '../contract/check-response.ts';
import { eligibilityResponseResource } from '../fhir/response.ts';
import type { CheckDetailRow } from '../store/checks.ts';

/** The response of a finished check; undefined while it is IN_PROGRESS (it has none yet). */
export function responseOfCheck(check: CheckDetailRow): CoverageEligibilityResponse | undefined {
  if (check.status === 'IN_PROGRESS' || check.result === null) return undefined;
  const result = JSON.parse(check.result) as EligibilityCheckResponse;
  return eligibilityResponseResource({ ...check, result });
}
