/**
 * One attempt at one check: build the 270, ask the payer, read the 271, interpret the benefits, and decide
 * the outcome. No database access here: the caller records the outcome.
 */
import { interpretBenefits } from '../benefits/interpret.ts';
import { type CheckContext, completedBody, failedBody, serviceFailure } from '../checks/outcome.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { EligibilityMeta } from '../contract/check-response.ts';
import { type PayerEntry, PermanentPayerError, TransientPayerError } from '../payers/connector.ts';
import { build270 } from '../x12/build270.ts';
import { parse271 } from '../x12/parse271.ts';
import { X12Error } from '../x12/types.ts';

export type CheckOutcome =
  | { kind: 'finished'; status: 'COMPLETED' | 'FAILED'; body: string; outcomeCode: string }
  | { kind: 'transient'; reason: string; retryAfterMs?: number };

export interface ProcessOptions {
  payer: PayerEntry | undefined;
  senderId: string;
  applicationMode: 'sandbox' | 'production';
  timeoutMs: number;
  /** Aborts the payer call on shutdown. */
  signal: AbortSignal;
  onPayerCall?: (result: 'ok' | 'transient' | 'permanent' | 'timeout', durationMs: number) => void;
}

/** AAA reject reasons that mean "ask again later" rather than "this inquiry is wrong". */
const TRANSIENT_AAA = new Set(['42', '80']);

export async function processCheck(
  id: string,
  request: EligibilityCheckRequest,
  opts: ProcessOptions,
): Promise<CheckOutcome> {
  const meta: EligibilityMeta = {
    applicationMode: opts.applicationMode,
    senderId: opts.senderId,
    submitterId: opts.senderId,
    traceId: id,
    outboundTraceId: id,
  };
  const ctx: CheckContext = {
    id,
    request,
    payer: opts.payer
      ? { payerName: opts.payer.payerName, payerId: opts.payer.payerId }
      : { payerId: request.tradingPartnerServiceId },
    meta,
  };
  if (!opts.payer) {
    return { kind: 'finished', status: 'FAILED', body: serviceFailure(ctx, 'SH01'), outcomeCode: 'SH01' };
  }
  const traceNumber = id.replaceAll('-', '');
  const x12_270 = build270(
    {
      provider: request.provider,
      subscriber: request.subscriber,
      encounter: request.encounter,
      traceNumber,
      payer: { name: opts.payer.payerName, id: opts.payer.payerId },
    },
    {
      senderId: opts.senderId,
      receiverId: opts.payer.payerId,
      interchangeControlNumber: 1 + Math.floor(Math.random() * 999_999_998),
      now: new Date(),
      usageIndicator: opts.applicationMode === 'sandbox' ? 'T' : 'P',
    },
  );

  let x12_271: string;
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const callStarted = performance.now();
  const called = (result: 'ok' | 'transient' | 'permanent' | 'timeout') =>
    opts.onPayerCall?.(result, performance.now() - callStarted);
  try {
    x12_271 = await opts.payer.connector.send(x12_270, { signal: AbortSignal.any([timeout, opts.signal]) });
    called('ok');
  } catch (err) {
    called(err instanceof PermanentPayerError ? 'permanent' : timeout.aborted ? 'timeout' : 'transient');
    if (err instanceof PermanentPayerError) {
      return { kind: 'finished', status: 'FAILED', body: serviceFailure(ctx, 'SH02'), outcomeCode: 'SH02' };
    }
    if (err instanceof TransientPayerError)
      return { kind: 'transient', reason: 'payer unavailable', retryAfterMs: err.retryAfterMs };
    if (timeout.aborted) return { kind: 'transient', reason: 'payer timeout' };
    if (opts.signal.aborted) return { kind: 'transient', reason: 'shutdown' };
    return { kind: 'transient', reason: `payer call failed (${(err as Error).name})` };
  }

  let outcome: ReturnType<typeof parse271>;
  try {
    outcome = parse271(x12_271, { traceNumber });
  } catch (err) {
    const issues = err instanceof X12Error ? err.issues.map((i) => i.code).join(', ') : 'unreadable';
    const detail = `The payer's answer could not be read as X12 (${issues}).`;
    return {
      kind: 'finished',
      status: 'FAILED',
      body: serviceFailure(ctx, 'SH02', detail),
      outcomeCode: 'SH02:X12',
    };
  }
  if (outcome.kind === 'rejected') {
    const r = outcome.rejection;
    const detail = `The payer rejected the inquiry (${r.kind} ${r.code}): ${r.message}`;
    return {
      kind: 'finished',
      status: 'FAILED',
      body: serviceFailure(ctx, 'SH02', detail),
      outcomeCode: `SH02:${r.kind}`,
    };
  }
  const parsed = outcome.result;
  const broken = parsed.issues.filter((i) => i.severity === 'error');
  if (broken.length) {
    const detail = `The payer's answer was incomplete (${broken.map((i) => i.code).join(', ')}).`;
    return {
      kind: 'finished',
      status: 'FAILED',
      body: serviceFailure(ctx, 'SH02', detail),
      outcomeCode: 'SH02:X12',
    };
  }
  const transient = parsed.rejections.find((r) => TRANSIENT_AAA.has(r.code) && !r.loop.startsWith('2110'));
  if (transient) return { kind: 'transient', reason: `payer answered AAA ${transient.code}` };
  if (parsed.errors.length > 0) {
    const codes = parsed.errors.map((e) => e.code).join(',');
    return {
      kind: 'finished',
      status: 'FAILED',
      body: failedBody(ctx, parsed.errors, parsed),
      outcomeCode: `AAA:${codes}`,
    };
  }
  const interpretation = interpretBenefits({
    benefitsInformation: parsed.benefitsInformation,
    planActive: parsed.planActive,
    requestedServiceTypeCodes: request.encounter?.serviceTypeCodes ?? [],
  });
  return {
    kind: 'finished',
    status: 'COMPLETED',
    body: completedBody(ctx, parsed, interpretation, x12_271),
    outcomeCode: 'COMPLETED',
  };
}
