/**
 * Builds the bodies a finished check is read and delivered with (spec 2.1 "Population by status").
 * The body is serialized once here, stored, served by the status operation and sent by the webhook.
 */
import type { Interpretation } from '../benefits/types.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type {
  EligibilityCheckError,
  EligibilityCheckResponse,
  EligibilityMeta,
  Payer,
} from '../contract/check-response.ts';
import type { Eligibility271 } from '../x12/types.ts';

/** Errors raised by the service itself, with the spec's descriptions and follow-up actions. */
export const SERVICE_ERRORS = {
  SH01: {
    code: 'SH01',
    description: 'Payer not supported',
    followupAction: 'Resubmission Not Allowed',
    field: 'SERVICE',
    possibleResolutions:
      'Check the tradingPartnerServiceId against the payer directory (SANDBOX is the sandbox payer).',
  },
  SH02: {
    code: 'SH02',
    description: 'Payer portal check did not complete',
    followupAction: 'Resubmission Allowed',
    field: 'SERVICE',
    possibleResolutions:
      'The payer did not answer in time or answered unusably. Submit the check again later.',
  },
  SH03: {
    code: 'SH03',
    description: 'Check could not be processed',
    followupAction: 'Resubmission Allowed',
    field: 'SERVICE',
    possibleResolutions:
      'The service failed while processing this check, and retrying did not help. Check the request against the API reference and submit it again; if it fails again, contact support with the check id.',
  },
  SH04: {
    code: 'SH04',
    description: 'Payer rejected the inquiry',
    followupAction: 'Please Correct and Resubmit',
    field: 'X12',
    possibleResolutions:
      'The payer could not read the inquiry (a 999 or TA1 rejection) and did not answer it. Correct the inquiry and submit it again.',
  },
} as const satisfies Record<string, EligibilityCheckError>;

export interface CheckContext {
  id: string;
  request: EligibilityCheckRequest;
  payer: Payer;
  meta: EligibilityMeta;
}

function requestSubscriber(request: EligibilityCheckRequest) {
  const s = request.subscriber;
  return { memberId: s.memberId, firstName: s.firstName, lastName: s.lastName, dateOfBirth: s.dateOfBirth };
}

export function failedBody(
  ctx: CheckContext,
  errors: EligibilityCheckError[],
  from271?: Eligibility271,
): string {
  const body: EligibilityCheckResponse = {
    id: ctx.id,
    status: 'FAILED',
    payer: {
      payerName: from271?.payer.payerName ?? ctx.payer.payerName,
      payerId: from271?.payer.payerId ?? ctx.payer.payerId,
    },
    subscriber: requestSubscriber(ctx.request),
    tradingPartnerServiceId: ctx.request.tradingPartnerServiceId,
    errors,
  };
  return JSON.stringify(body);
}

export function serviceFailure(
  ctx: CheckContext,
  code: keyof typeof SERVICE_ERRORS,
  detail?: string,
): string {
  const error: EligibilityCheckError = { ...SERVICE_ERRORS[code] };
  if (detail) error.possibleResolutions = `${error.possibleResolutions}\n${detail}`;
  return failedBody(ctx, [error]);
}

export function completedBody(
  ctx: CheckContext,
  parsed: Eligibility271,
  interpretation: Interpretation,
  x12: string,
): string {
  const provider = { ...ctx.request.provider, ...parsed.provider };
  const body: EligibilityCheckResponse = {
    id: ctx.id,
    status: 'COMPLETED',
    provider,
    payer: { ...ctx.payer, ...parsed.payer },
    subscriber: { ...requestSubscriber(ctx.request), ...parsed.subscriber },
    dependents: parsed.dependents,
    tradingPartnerServiceId: ctx.request.tradingPartnerServiceId,
    planInformation: parsed.planInformation,
    planDateInformation: parsed.planDateInformation,
    planActive: parsed.planActive,
    planCoverage: parsed.planCoverage,
    providerNetwork: parsed.providerNetwork,
    benefits: interpretation.benefits,
    additionalNotes: null,
    warnings: [...parsed.warnings, ...interpretation.warnings],
    benefitsInformation: parsed.benefitsInformation,
    confidence: interpretation.confidence,
    meta: ctx.meta,
    subscriberTraceNumbers: parsed.subscriberTraceNumbers,
    x12,
  };
  return JSON.stringify(body);
}
