/**
 * Accepting a batch (docs/batches.md): up to 10,000 submit bodies in one request. Every item goes through the
 * intake of a single submit (src/checks/intake.ts: same repairs, same messages); the valid ones become
 * checks of background priority in one transaction (src/store/batches.ts), unless `atomic` asks to refuse
 * the whole batch on any bad item.
 *
 * Idempotency as for a single check: the same key and the same body within 24 hours answer the same batch
 * (same ids); the same key with another body is a conflict. The unique index on (organization, key) of
 * `batches` decides races.
 *
 * Batches are limited by the checks they keep in flight, not by requests per second: a batch that would
 * take an organization past BATCH_MAX_PENDING_CHECKS is refused (429) until earlier ones progress. The
 * count is read before the insert, so two batches racing may together pass it by one batch: a soft limit.
 */
import { setImmediate } from 'node:timers/promises';
import { priceWithFees, unpricedCodes } from '../checks/charges.ts';
import { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_WINDOW_MS, requestHash } from '../checks/idempotency.ts';
import { type Intake, type PayerLookup, takeIn } from '../checks/intake.ts';
import { formatProblems } from '../checks/request.ts';
import { type BatchAccepted, type BatchTotals, batchCounts, MAX_BATCH_CHECKS } from '../contract/batch.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import { uuidv7 } from '../ids.ts';
import {
  countPendingBatchChecks,
  findBatchByIdempotencyKey,
  insertBatchWithChecks,
  type NewBatchCheck,
  releaseBatchIdempotencyKey,
  selectBatchCheckIds,
} from '../store/batches.ts';
import type { Db } from '../store/db.ts';
import { findFees } from '../store/fee-schedule.ts';

export type BatchSubmitResult =
  | { ok: true; accepted: BatchAccepted; replayed: boolean }
  | { ok: false; invalid: string }
  | { ok: false; conflict: string }
  | { ok: false; overLimit: { pending: number; limit: number } };

/** BATCH_MAX_PENDING_CHECKS's default, for callers built without a configuration (tests, the portal harness). */
export const DEFAULT_MAX_PENDING_BATCH_CHECKS = 50_000;

export interface BatchSubmitOptions {
  idempotencyKey?: string;
  /** The payer directory (the intake's canonical ids and member id rules). */
  payers?: PayerLookup;
  /** BATCH_MAX_PENDING_CHECKS. */
  maxPendingChecks: number;
  wake: () => void | Promise<void>;
}

interface Envelope {
  checks: unknown[];
  name: string | null;
  atomic: boolean;
}

/** The batch request around the items: what must hold before any item is looked at. */
function readEnvelope(body: unknown): Envelope | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'Invalid request: body must be a JSON object.';
  }
  const { checks, name, atomic, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) return `Invalid request: unknown field ${unknown.map((k) => `"${k}"`).join(', ')}.`;
  if (!Array.isArray(checks) || checks.length < 1 || checks.length > MAX_BATCH_CHECKS) {
    return `Invalid request: checks must be an array of 1 to ${MAX_BATCH_CHECKS} submit bodies.`;
  }
  if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > 200)) {
    return 'Invalid request: name must be a string of 1 to 200 characters.';
  }
  if (atomic !== undefined && typeof atomic !== 'boolean')
    return 'Invalid request: atomic must be true or false.';
  return { checks, name: (name as string | undefined) ?? null, atomic: atomic === true };
}

/** Items taken in between two turns of the event loop: a whole batch at once would hold it for seconds. */
const ITEMS_PER_STEP = 200;

/** Each item taken in as a single submit would be, with its problem worded as a single submit answers it. */
async function takeInItems(
  checks: unknown[],
  payers: PayerLookup | undefined,
): Promise<(Intake & { problem?: string })[]> {
  const now = new Date();
  const out: (Intake & { problem?: string })[] = [];
  for (let i = 0; i < checks.length; i++) {
    if (i > 0 && i % ITEMS_PER_STEP === 0) await setImmediate();
    const taken = takeIn(checks[i], { payers, now });
    out.push(taken.ok ? taken : { ...taken, problem: formatProblems(taken.problems) });
  }
  return out;
}

type TakenItem = Intake & { problem?: string; priced?: PricedCharge[] };

/**
 * Items' charges priced as a single submit's are (src/checks/charges.ts), with one fee schedule read for
 * the whole batch; an item whose charge has no amount and no fee becomes invalid, worded as a submit's.
 */
async function priceItems(db: Db, organizationId: string, items: TakenItem[]): Promise<TakenItem[]> {
  const codes = items.flatMap((t) => (t.ok ? unpricedCodes(t.charges) : []));
  const fees = await findFees(db, organizationId, codes);
  return items.map((t) => {
    if (!t.ok || t.charges.length === 0) return t;
    const payer = t.request.tradingPartnerServiceId;
    const priced = priceWithFees(t.charges, fees, payer, 'encounter.charges');
    if (priced.ok) return { ...t, priced: priced.charges };
    return { ok: false, problems: priced.problems, problem: formatProblems(priced.problems) };
  });
}

/**
 * What `submitBatch` would say about each item, without submitting anything: the problem of each invalid
 * item (the message a single submit answers), undefined for a valid one. The portal shows these, by file
 * line, before the user decides to send the valid rows.
 */
export async function batchItemProblems(
  checks: unknown[],
  payers?: PayerLookup,
): Promise<(string | undefined)[]> {
  return (await takeInItems(checks, payers)).map((v) => v.problem);
}

export async function submitBatch(
  db: Db,
  organizationId: string,
  body: unknown,
  options: BatchSubmitOptions,
): Promise<BatchSubmitResult> {
  const envelope = readEnvelope(body);
  if (typeof envelope === 'string') return { ok: false, invalid: envelope };
  const validated = await priceItems(db, organizationId, await takeInItems(envelope.checks, options.payers));
  const problems = validated.map((v) => v.problem);
  const bad = problems.filter((p) => p !== undefined).length;
  if (envelope.atomic && bad) {
    const first = problems.findIndex((p) => p !== undefined);
    return {
      ok: false,
      invalid: `${bad} of ${envelope.checks.length} checks are invalid and the batch is atomic; nothing was accepted. checks[${first}]: ${problems[first]}`,
    };
  }
  if (bad === envelope.checks.length) {
    return { ok: false, invalid: `No valid check in the batch. checks[0]: ${problems[0]}` };
  }
  const key = options.idempotencyKey ?? null;
  const hash = key === null ? null : requestHash(body);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (key !== null && hash !== null) {
      const prior = await findBatchByIdempotencyKey(db, organizationId, key, IDEMPOTENCY_WINDOW_MS);
      if (prior?.expired) await releaseBatchIdempotencyKey(db, prior.id, key);
      else if (prior && prior.requestHash !== hash) {
        return { ok: false, conflict: IDEMPOTENCY_CONFLICT };
      } else if (prior) {
        const ids = await selectBatchCheckIds(db, prior.id);
        return { ok: true, accepted: acceptedAnswer(prior, problems, ids), replayed: true };
      }
    }
    const accepted = envelope.checks.length - bad;
    const pending = await countPendingBatchChecks(db, organizationId);
    if (pending + accepted > options.maxPendingChecks) {
      return { ok: false, overLimit: { pending, limit: options.maxPendingChecks } };
    }
    const items: NewBatchCheck[] = [];
    validated.forEach((taken, index) => {
      if (!taken.ok) return;
      const { request, reuseWithinHours, corrections, connection } = taken;
      const charges = 'priced' in taken && taken.priced ? { charges: taken.priced } : {};
      items.push({
        ...charges,
        id: uuidv7(),
        tradingPartnerServiceId: request.tradingPartnerServiceId,
        connection,
        request,
        batchIndex: index,
        reuseWithinHours,
        ...(corrections.length ? { requestCorrections: corrections } : {}),
      });
    });
    const batch = {
      id: uuidv7(),
      organizationId,
      name: envelope.name,
      rejected: bad,
      idempotencyKey: key,
      requestHash: hash,
    };
    if (await insertBatchWithChecks(db, batch, items)) {
      await options.wake();
      const row = { ...batch, total: items.length, pending: items.length, completed: 0, failed: 0 };
      const answer = acceptedAnswer(
        { ...row, active: 0, inactive: 0, undetermined: 0, createdAt: new Date(), completedAt: null },
        problems,
        items.map((i) => ({ id: i.id, batchIndex: i.batchIndex })),
      );
      return { ok: true, accepted: answer, replayed: false };
    }
    // Another request took the key between our read and our insert: read it again.
  }
  throw new Error('idempotent batch insert did not settle');
}

function acceptedAnswer(
  batch: BatchTotals,
  problems: (string | undefined)[],
  ids: { id: string; batchIndex: number | null }[],
): BatchAccepted {
  const byIndex = new Map(ids.map((i) => [i.batchIndex, i.id]));
  return {
    id: batch.id,
    status: 'IN_PROGRESS',
    counts: batchCounts(batch),
    items: problems.map((problem, index) =>
      problem === undefined ? { id: byIndex.get(index) ?? '' } : { error: problem },
    ),
    problems: problems.flatMap((message, index) => (message === undefined ? [] : [{ index, message }])),
  };
}
