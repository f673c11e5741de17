/**
 * One attempt at one check: build the 270, ask the payer, read the 271, interpret the benefits, and decide
 * the outcome. No database access here: the caller records the outcome.
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
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { EligibilityMeta, RequestCorrection } from '../contract/check-response.ts';
import {
  PayerAuthenticationError,
  type PayerEntry,
  PermanentPayerError,
  TransientPayerError,
} from '../payers/connector.ts';
import { build270 } from '../x12/build270.ts';
import { parse271 } from '../x12/parse271.ts';
import { echoesTrace } from '../x12/trace-echo.ts';
import { X12Error } from '../x12/types.ts';
import { rejectionError } from './rejection-error.ts';

export type CheckOutcome =
  | { kind: 'finished'; status: 'COMPLETED' | 'FAILED'; body: string; outcomeCode: string }
  | { kind: 'transient'; reason: string; retryAfterMs?: number; cause?: 'authentication' };

/** What one payer call came to, for its log line and metrics. */
export type PayerCallOutcome =
  | 'ok'
  | 'rejected'
  | 'trace-mismatch'
  | 'unreadable'
  | 'transient'
  | 'timeout'
  | 'permanent'
  | 'auth-failed';

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
  /** ISA06/GS02 and ISA05 (X12_SENDER_ID, X12_SENDER_QUALIFIER); the payer's envelope overrides them. */
  senderId: string;
  senderQualifier?: string;
  /** This payer's call budget (its `timeoutMs`, else PAYER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Aborts the payer call on shutdown. */
  signal: AbortSignal;
  /** The repairs made to the request at submission, repeated on the result. */
  requestCorrections?: readonly RequestCorrection[] | null;
  onPayerCall?: (call: PayerCall) => void;
}

/** What an exchange id may look like (CORE PayloadIDs are UUIDs; clearinghouse ids are similar). */
const EXCHANGE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** AAA reject reasons that mean "ask again later" rather than "this inquiry is wrong". */
const TRANSIENT_AAA = new Set(['42', '80']);

export async function processCheck(
  id: string,
  request: EligibilityCheckRequest,
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
  };
  const ctx: CheckContext = {
    id,
    request,
    payer: payer
      ? { payerName: payer.payerName, payerId: payer.payerId }
      : { payerId: request.tradingPartnerServiceId },
    meta,
    requestCorrections: opts.requestCorrections,
  };
  if (!payer) {
    return { kind: 'finished', status: 'FAILED', body: serviceFailure(ctx, 'SH01'), outcomeCode: 'SH01' };
  }
  const x12_270 = build270(
    {
      provider: request.provider,
      subscriber: request.subscriber,
      encounter: request.encounter,
      traceNumber,
      payer: { name: payer.payerName, id: payer.payerId },
    },
    {
      senderId,
      senderQualifier: payer.envelope?.senderQualifier ?? opts.senderQualifier,
      receiverId: payer.envelope?.receiverId ?? payer.payerId,
      receiverQualifier: payer.envelope?.receiverQualifier,
      interchangeControlNumber: 1 + Math.floor(Math.random() * 999_999_998),
      now: new Date(),
      usageIndicator,
    },
  );

  const timeout = AbortSignal.timeout(opts.timeoutMs);
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
      signal: AbortSignal.any([timeout, opts.signal]),
      onExchangeId: (exchange) => {
        // The gateway chooses it, and it goes into logs and the answer: an id's characters only.
        if (EXCHANGE_ID.test(exchange)) exchangeId = exchange;
      },
    });
  } catch (err) {
    return callFailed(err, timeout.aborted, opts.signal.aborted, ctx, called);
  }
  // The gateway's id of this exchange is what its support asks for; the check id stays in `id`.
  if (exchangeId) meta.traceId = exchangeId;

  let outcome: ReturnType<typeof parse271>;
  try {
    outcome = parse271(x12_271, { traceNumber, subscriber: request.subscriber });
  } catch (err) {
    called('unreadable');
    const issues = err instanceof X12Error ? err.issues.map((i) => i.code).join(', ') : 'unreadable';
    const detail = `The payer's answer could not be read as X12 (${issues}).`;
    return failed(serviceFailure(ctx, 'SH02', detail), 'SH02:X12');
  }
  if (outcome.kind === 'rejected') {
    called('rejected');
    return failed(failedBody(ctx, [rejectionError(outcome.rejection)]), `SH04:${outcome.rejection.kind}`);
  }
  const parsed = outcome.result;
  const broken = parsed.issues.filter((i) => i.severity === 'error');
  if (broken.length) {
    called('unreadable');
    const detail = `The payer's answer was incomplete (${broken.map((i) => i.code).join(', ')}).`;
    return failed(serviceFailure(ctx, 'SH02', detail), 'SH02:X12');
  }
  if (!echoesTrace(parsed, x12_271, traceNumber)) {
    called('trace-mismatch');
    return { kind: 'transient', reason: "payer's 271 does not echo this check's trace" };
  }
  const transient = parsed.rejections.find((r) => TRANSIENT_AAA.has(r.code) && !r.loop.startsWith('2110'));
  if (transient) {
    called('transient', [transient.code]);
    return { kind: 'transient', reason: `payer answered AAA ${transient.code}` };
  }
  called('ok', parsed.errors.length > 0 ? parsed.errors.map((e) => e.code) : undefined);
  if (parsed.errors.length > 0) {
    const codes = parsed.errors.map((e) => e.code).join(',');
    return failed(failedBody(ctx, parsed.errors, parsed), `AAA:${codes}`);
  }
  const interpretation = interpretBenefits({
    benefitsInformation: parsed.benefitsInformation,
    planActive: parsed.planActive,
    requestedServiceTypeCodes: request.encounter?.serviceTypeCodes ?? [],
    // The current benefit period is the one containing the date of service, else today (UTC).
    asOf: request.encounter?.dateOfService ?? new Date().toISOString().slice(0, 10).replaceAll('-', ''),
  });
  return {
    kind: 'finished',
    status: 'COMPLETED',
    body: completedBody(ctx, parsed, interpretation, parsed.clientX12 ?? x12_271),
    outcomeCode: 'COMPLETED',
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
