/**
 * One attempt at one check: plan the 270s the payer's profile asks for (inquiries.ts; one for most payers,
 * one per code for a `separate` payer), ask the payer each, read the 271s, merge them, interpret the
 * benefits, and decide the outcome. No database access here: the caller records the outcome.
 *
 * What a payer's answer comes to:
 * - a 271 that echoes our trace: COMPLETED, or FAILED with its AAA codes (42/80 "try later": transient);
 * - a 271 that answers another inquiry (someone else's trace): transient, never attached to this check;
 * - a 999 or TA1 rejection: FAILED at once with SH04, naming the segment and element to correct;
 * - a refused credential (PayerAuthenticationError): transient with cause `authentication`, which the
 *   worker turns into an open breaker and a wait that costs no attempt.
 */
import { interpretBenefits } from '../benefits/interpret.ts';
import { type CheckContext, completedBody, failedBody, serviceFailure } from '../checks/outcome.ts';
import type { StoredCheckRequest } from '../contract/check-request.ts';
import type {
  EligibilityCheckError,
  EligibilityCheckResponse,
  EligibilityMeta,
  RequestCorrection,
  Warning,
} from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import {
  ConnectionThrottledError,
  PayerAuthenticationError,
  type PayerEntry,
  PermanentPayerError,
  TransientPayerError,
} from '../payers/connector.ts';
import { build270 } from '../x12/build270.ts';
import { joinInterchanges, merge271 } from '../x12/merge271.ts';
import { parse271 } from '../x12/parse271.ts';
import { echoesTrace } from '../x12/trace-echo.ts';
import { type Eligibility271, X12Error } from '../x12/types.ts';
import {
  askedCodes,
  INQUIRY_REFUSED_WARNING_CODE,
  inquiryCodes,
  type PlannedInquiry,
  planInquiries,
} from './inquiries.ts';
import { rejectionError } from './rejection-error.ts';

export type CheckOutcome =
  | {
      kind: 'finished';
      status: 'COMPLETED' | 'FAILED';
      body: string;
      outcomeCode: string;
      /** The object `body` was serialized from (a completed answer), for readers that need no copy. */
      response?: EligibilityCheckResponse;
    }
  | {
      kind: 'transient';
      reason: string;
      retryAfterMs?: number;
      /** `throttled`: the connection's account limit (429, or no slot in time); never a payer outage. */
      cause?: 'authentication' | 'throttled' | 'connection-busy';
    };

/** What one payer call came to, for its log line and metrics. */
export type PayerCallOutcome =
  | 'ok'
  | 'rejected'
  | 'trace-mismatch'
  | 'unreadable'
  | 'transient'
  | 'timeout'
  | 'permanent'
  | 'auth-failed'
  /** The connection refused for its account limit (429) or gave no slot in time: no payer answer. */
  | 'throttled';

export interface PayerCall {
  outcome: PayerCallOutcome;
  durationMs: number;
  /** The gateway's id of the exchange (CORE PayloadID, a clearinghouse request id), when it gave one. */
  exchangeId?: string;
  /** Our trace (270 TRN02 and BHT03). */
  traceNumber: string;
  /** The AAA03 codes of a 271 that carries rejections (the payer scorecard counts them by code). */
  aaaCodes?: string[];
}

export interface ProcessOptions {
  payer: PayerEntry | undefined;
  /** The connection the payer is asked through (the result's `meta.connection`). */
  connection?: string;
  /** ISA06/GS02 and ISA05 (X12_SENDER_ID, X12_SENDER_QUALIFIER); the payer's envelope overrides them. */
  senderId: string;
  senderQualifier?: string;
  /** This payer's call budget (its `timeoutMs`, else PAYER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Aborts the payer call on shutdown. */
  signal: AbortSignal;
  /** The repairs made to the request at submission, repeated on the result. */
  requestCorrections?: readonly RequestCorrection[] | null;
  /** The charges to estimate (priced at submission): the completed result carries their estimates. */
  charges?: readonly PricedCharge[] | null;
  onPayerCall?: (call: PayerCall) => void;
  /** Payers near an id the directory does not list (`PayerDirectory.closestPayers`): SH01 names them. */
  suggestPayers?: (unknownId: string) => readonly { id: string; name: string }[];
}

/** SH01's hint: the directory's closest payers, by id and name (the directory's words, not the request's). */
export function didYouMean(near: readonly { id: string; name: string }[] | undefined): string | undefined {
  if (!near?.length) return undefined;
  return `Payers with a similar id or name: ${near.map((p) => `${p.id} (${p.name})`).join(', ')}.`;
}

/** What an exchange id may look like (CORE PayloadIDs are UUIDs; clearinghouse ids are similar). */
const EXCHANGE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** AAA reject reasons that mean "ask again later" rather than "this inquiry is wrong". */
const TRANSIENT_AAA = new Set(['42', '80']);

export async function processCheck(
  id: string,
  request: StoredCheckRequest,
  opts: ProcessOptions,
): Promise<CheckOutcome> {
  const payer = opts.payer;
  const traceNumber = id.replaceAll('-', '');
  const senderId = payer?.envelope?.senderId ?? opts.senderId;
  // ISA15 says whether the payer treats the inquiry as production or test; meta says which it was.
  const usageIndicator = payer?.envelope?.usageIndicator ?? 'P';
  const meta: EligibilityMeta = {
    applicationMode: usageIndicator === 'T' ? 'sandbox' : 'production',
    senderId,
    submitterId: senderId,
    traceId: id,
    outboundTraceId: traceNumber,
    ...(opts.connection ? { connection: opts.connection } : {}),
  };
  const ctx: CheckContext = {
    id,
    request,
    payer: payer
      ? { payerName: payer.payerName, payerId: payer.payerId }
      : { payerId: request.tradingPartnerServiceId },
    meta,
    requestCorrections: opts.requestCorrections,
    ...(payer?.memberIdFormat ? { memberIdFormat: payer.memberIdFormat } : {}),
    charges: opts.charges,
  };
  if (!payer) {
    const body = serviceFailure(
      ctx,
      'SH01',
      didYouMean(opts.suggestPayers?.(request.tradingPartnerServiceId)),
    );
    return { kind: 'finished', status: 'FAILED', body, outcomeCode: 'SH01' };
  }
  const codes = inquiryCodes(request.encounter?.serviceTypeCodes, payer.inquiryWithoutCodes);
  const plan = planInquiries(codes, payer.stcStrategy);
  // One budget for every inquiry of the attempt: the check's lease outlasts it (LEASE_MS > PAYER_TIMEOUT_MS).
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const call: InquiryCall = { payer, request, traceNumber, senderId, usageIndicator, opts, ctx, timeout };
  const answers: InquiryAnswer[] = [];
  for (const inquiry of plan) {
    const asked = await askPayer(inquiry, call);
    if (asked.kind === 'stopped') return asked.outcome;
    answers.push(asked);
  }
  return readAnswers(answers, askedCodes(request.encounter?.serviceTypeCodes, plan), ctx);
}

/** What every inquiry of one attempt shares. */
interface InquiryCall {
  payer: PayerEntry;
  request: StoredCheckRequest;
  traceNumber: string;
  senderId: string;
  usageIndicator: 'P' | 'T';
  opts: ProcessOptions;
  ctx: CheckContext;
  timeout: AbortSignal;
}

/** A 271 that echoes the check's trace and is not a "try later": it may still refuse the inquiry (AAA). */
interface InquiryAnswer {
  kind: 'answer';
  inquiry: PlannedInquiry;
  result: Eligibility271;
  /** The answer as a client may see it (without other subscribers' loops). */
  x12: string;
}

/**
 * One payer call: build the inquiry's 270, send it, read the 271. Anything but a readable answer to this
 * check (a rejection, an unreadable or foreign 271, a "try later", a failed call) ends the attempt.
 */
async function askPayer(
  inquiry: PlannedInquiry,
  call: InquiryCall,
): Promise<InquiryAnswer | { kind: 'stopped'; outcome: CheckOutcome }> {
  const { payer, request, traceNumber, opts, ctx } = call;
  const x12_270 = build270(
    {
      provider: request.provider,
      subscriber: request.subscriber,
      encounter: { ...request.encounter, serviceTypeCodes: inquiry.serviceTypeCodes },
      eqForm: inquiry.eqForm,
      traceNumber,
      payer: { name: payer.payerName, id: payer.payerId },
    },
    {
      senderId: call.senderId,
      senderQualifier: payer.envelope?.senderQualifier ?? opts.senderQualifier,
      receiverId: payer.envelope?.receiverId ?? payer.payerId,
      receiverQualifier: payer.envelope?.receiverQualifier,
      interchangeControlNumber: 1 + Math.floor(Math.random() * 999_999_998),
      now: new Date(),
      usageIndicator: call.usageIndicator,
    },
  );
  const stop = (outcome: CheckOutcome) => ({ kind: 'stopped', outcome }) as const;
  const started = performance.now();
  let exchangeId: string | undefined;
  const called = (outcome: PayerCallOutcome, aaaCodes?: string[]) =>
    opts.onPayerCall?.({
      outcome,
      durationMs: performance.now() - started,
      exchangeId,
      traceNumber,
      aaaCodes,
    });
  let x12_271: string;
  try {
    x12_271 = await payer.connector.send(x12_270, {
      signal: AbortSignal.any([call.timeout, opts.signal]),
      onExchangeId: (exchange) => {
        // The gateway chooses it, and it goes into logs and the answer: an id's characters only.
        if (EXCHANGE_ID.test(exchange)) exchangeId = exchange;
      },
    });
  } catch (err) {
    return stop(callFailed(err, call.timeout.aborted, opts.signal.aborted, ctx, called));
  }
  // The gateway's id of the (first) exchange is what its support asks for; the check id stays in `id`.
  if (exchangeId && ctx.meta.traceId === ctx.id) ctx.meta.traceId = exchangeId;

  let outcome: ReturnType<typeof parse271>;
  try {
    outcome = parse271(x12_271, { traceNumber, subscriber: request.subscriber });
  } catch (err) {
    called('unreadable');
    const issues = err instanceof X12Error ? err.issues.map((i) => i.code).join(', ') : 'unreadable';
    const detail = `The payer's answer could not be read as X12 (${issues}).`;
    return stop(failed(serviceFailure(ctx, 'SH02', detail), 'SH02:X12'));
  }
  if (outcome.kind === 'rejected') {
    called('rejected');
    return stop(
      failed(failedBody(ctx, [rejectionError(outcome.rejection)]), `SH04:${outcome.rejection.kind}`),
    );
  }
  const parsed = outcome.result;
  const broken = parsed.issues.filter((i) => i.severity === 'error');
  if (broken.length) {
    called('unreadable');
    const detail = `The payer's answer was incomplete (${broken.map((i) => i.code).join(', ')}).`;
    return stop(failed(serviceFailure(ctx, 'SH02', detail), 'SH02:X12'));
  }
  if (!echoesTrace(parsed, x12_271, traceNumber)) {
    called('trace-mismatch');
    return stop({ kind: 'transient', reason: "payer's 271 does not echo this check's trace" });
  }
  const transient = parsed.rejections.find((r) => TRANSIENT_AAA.has(r.code) && !r.loop.startsWith('2110'));
  if (transient) {
    called('transient', [transient.code]);
    return stop({ kind: 'transient', reason: `payer answered AAA ${transient.code}` });
  }
  called('ok', parsed.errors.length > 0 ? parsed.errors.map((e) => e.code) : undefined);
  return { kind: 'answer', inquiry, result: parsed, x12: parsed.clientX12 ?? x12_271 };
}

/**
 * The check's outcome from its answers. Every inquiry refused (AAA): FAILED with their errors, as a single
 * inquiry's refusal always did. Some refused: COMPLETED from the others, with a warning naming the refused
 * codes. The result's x12 holds every answer, refused ones too (joinInterchanges).
 */
function readAnswers(answers: InquiryAnswer[], requested: string[], ctx: CheckContext): CheckOutcome {
  const answered = answers.filter((a) => a.result.errors.length === 0);
  const refused = answers.filter((a) => a.result.errors.length > 0);
  if (answered.length === 0) {
    const errors = uniqueErrors(refused.flatMap((a) => a.result.errors));
    const codes = errors.map((e) => e.code).join(',');
    return failed(failedBody(ctx, errors, refused[0]!.result), `AAA:${codes}`);
  }
  const parsed = merge271(answered.map((a) => a.result));
  if (refused.length > 0) parsed.warnings.push(inquiryRefusedWarning(refused));
  const interpretation = interpretBenefits({
    benefitsInformation: parsed.benefitsInformation,
    planActive: parsed.planActive,
    requestedServiceTypeCodes: requested,
    // The current benefit period is the one containing the date of service, else today (UTC).
    asOf: ctx.request.encounter?.dateOfService ?? new Date().toISOString().slice(0, 10).replaceAll('-', ''),
  });
  const x12 = joinInterchanges(answers.map((a) => a.x12));
  const { body, response } = completedBody(ctx, parsed, interpretation, x12);
  return { kind: 'finished', status: 'COMPLETED', body, response, outcomeCode: 'COMPLETED' };
}

/** The same AAA from several inquiries (a member id every 271 refuses) is reported once. */
function uniqueErrors(errors: EligibilityCheckError[]): EligibilityCheckError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = JSON.stringify(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Names the refused inquiries' codes and AAA reasons: codes only, never the request's values. */
function inquiryRefusedWarning(refused: InquiryAnswer[]): Warning {
  const codes = refused.flatMap((a) => a.inquiry.serviceTypeCodes).join(', ');
  const reasons = [...new Set(refused.flatMap((a) => a.result.errors.map((e) => e.code)))].join(', ');
  return {
    code: INQUIRY_REFUSED_WARNING_CODE,
    description: `The payer refused the inquiry for service type code ${codes} (AAA ${reasons}); the benefits rest on its answers to the other inquiries.`,
  };
}

function failed(body: string, outcomeCode: string): CheckOutcome {
  return { kind: 'finished', status: 'FAILED', body, outcomeCode };
}

function callFailed(
  err: unknown,
  timedOut: boolean,
  shuttingDown: boolean,
  ctx: CheckContext,
  called: (outcome: PayerCallOutcome) => void,
): CheckOutcome {
  if (err instanceof PayerAuthenticationError) {
    called('auth-failed');
    return { kind: 'transient', reason: 'payer authentication failed', cause: 'authentication' };
  }
  if (err instanceof ConnectionThrottledError) {
    called('throttled');
    return {
      kind: 'transient',
      reason: `connection ${err.kind}`,
      retryAfterMs: err.retryAfterMs,
      cause: err.kind === 'busy' ? 'connection-busy' : 'throttled',
    };
  }
  if (err instanceof PermanentPayerError) {
    called('permanent');
    return failed(serviceFailure(ctx, 'SH02'), 'SH02');
  }
  called(timedOut ? 'timeout' : 'transient');
  if (err instanceof TransientPayerError)
    return { kind: 'transient', reason: 'payer unavailable', retryAfterMs: err.retryAfterMs };
  if (timedOut) return { kind: 'transient', reason: 'payer timeout' };
  if (shuttingDown) return { kind: 'transient', reason: 'shutdown' };
  return { kind: 'transient', reason: `payer call failed (${(err as Error).name})` };
}
