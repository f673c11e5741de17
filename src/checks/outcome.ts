/**
 * Builds the bodies a finished check is read and delivered with (docs/contract.md "Which fields a check
 * carries").
 * The body is serialized once here, stored, served by the status operation and sent by the webhook.
 */
import type { Interpretation } from '../benefits/types.ts';
import type { StoredCheckRequest } from '../contract/check-request.ts';
import type {
  EligibilityCheckError,
  EligibilityCheckResponse,
  EligibilityMeta,
  Payer,
  RequestCorrection,
  ResponseDependent,
} from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import type { Eligibility271 } from '../x12/types.ts';
import { type GuidanceContext, serviceError, withGuidance } from './error-catalog.ts';
import { withEstimates } from './estimates.ts';
import { requestCorrectedWarning } from './request-repair.ts';
import { verdictOf } from './verdict.ts';

export type ServiceErrorCode = 'SH01' | 'SH02' | 'SH03' | 'SH04';

export interface CheckContext {
  id: string;
  request: StoredCheckRequest;
  payer: Payer;
  meta: EligibilityMeta;
  /** The repairs made to the request at submission (checks/request-repair.ts), repeated on the result. */
  requestCorrections?: readonly RequestCorrection[] | null;
  /** The payer's member id format (directory `memberIdFormat`): an AAA 72 from an MBI payer says what an MBI is. */
  memberIdFormat?: 'mbi';
  /** The charges to estimate, priced at submission (docs/estimates.md); absent or empty: none. */
  charges?: readonly PricedCharge[] | null;
}

/** `requestCorrections` and its warning, for a check whose request was repaired; nothing otherwise. */
function corrections(ctx: CheckContext) {
  // Read back from jsonb, whose key order is not the one written: the contract's order again.
  const list = (ctx.requestCorrections ?? []).map(({ field, code, description }) => ({
    field,
    code,
    description,
  }));
  return list.length ? { warning: requestCorrectedWarning(list), requestCorrections: list } : undefined;
}

/** Dependents' `aaaErrors` carry the same guidance as the check's own errors. */
function guidedDependents(
  dependents: ResponseDependent[] | undefined,
  context: GuidanceContext,
): ResponseDependent[] | undefined {
  return dependents?.map((d) =>
    d.aaaErrors ? { ...d, aaaErrors: d.aaaErrors.map((e) => withGuidance(e, context)) } : d,
  );
}

function guidanceOf(ctx: CheckContext): GuidanceContext {
  return ctx.memberIdFormat ? { memberIdFormat: ctx.memberIdFormat } : {};
}

function requestSubscriber(request: StoredCheckRequest) {
  const s = request.subscriber;
  return { memberId: s.memberId, firstName: s.firstName, lastName: s.lastName, dateOfBirth: s.dateOfBirth };
}

/** The stored body: the verdict, read off the finished body, right after the status. */
function serialize(body: EligibilityCheckResponse): string {
  return served(body).body;
}

/** A finished body as stored and served, and the object it was serialized from (read without parsing). */
export interface ServedBody {
  body: string;
  response: EligibilityCheckResponse;
}

function served(body: EligibilityCheckResponse): ServedBody {
  const { id, status, ...rest } = body;
  const response = { id, status, verdict: verdictOf(body), ...rest };
  return { body: JSON.stringify(response), response };
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
    errors: errors.map((e) => withGuidance(e, guidanceOf(ctx))),
  };
  const repaired = corrections(ctx);
  if (repaired) {
    body.warnings = [repaired.warning];
    body.requestCorrections = repaired.requestCorrections;
  }
  return serialize(body);
}

export function serviceFailure(ctx: CheckContext, code: ServiceErrorCode, detail?: string): string {
  const error = serviceError(code);
  if (detail) error.possibleResolutions = `${error.possibleResolutions}\n${detail}`;
  return failedBody(ctx, [error]);
}

export function completedBody(
  ctx: CheckContext,
  parsed: Eligibility271,
  interpretation: Interpretation,
  x12: string,
): ServedBody {
  const provider = { ...ctx.request.provider, ...parsed.provider };
  const body: EligibilityCheckResponse = {
    id: ctx.id,
    status: 'COMPLETED',
    provider,
    payer: { ...ctx.payer, ...parsed.payer },
    subscriber: { ...requestSubscriber(ctx.request), ...parsed.subscriber },
    dependents: guidedDependents(parsed.dependents, guidanceOf(ctx)),
    tradingPartnerServiceId: ctx.request.tradingPartnerServiceId,
    planInformation: parsed.planInformation,
    planDateInformation: parsed.planDateInformation,
    planActive: parsed.planActive,
    planCoverage: parsed.planCoverage,
    providerNetwork: parsed.providerNetwork,
    benefits: interpretation.benefits,
    ...(interpretation.otherCoverage ? { otherCoverage: interpretation.otherCoverage } : {}),
    additionalNotes: null,
    warnings: [...parsed.warnings, ...interpretation.warnings],
    benefitsInformation: parsed.benefitsInformation,
    confidence: interpretation.confidence,
    meta: ctx.meta,
    subscriberTraceNumbers: parsed.subscriberTraceNumbers,
    x12,
  };
  const repaired = corrections(ctx);
  if (repaired) {
    body.warnings = [...(body.warnings ?? []), repaired.warning];
    body.requestCorrections = repaired.requestCorrections;
  }
  return served(withEstimates(body, ctx.charges));
}
