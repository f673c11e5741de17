/**
 * Batches (issue 17 section 1): accepting up to 10,000 submit bodies in one request and reading a batch's
 * progress. Every item is validated with the rules of a single submit (same messages); the valid ones
 * become checks of background priority in one transaction (src/store/batches.ts), unless `atomic` asks
 * to refuse the whole batch on any bad item.
 *
 * Idempotency as for a single check: the same key and the same body within 24 hours answer the same batch
 * (same ids); the same key with another body is a conflict. The unique index on (organization, key) of
 * `batches` decides races.
 *
 * Batches are limited by the checks they keep in flight, not by requests per second: a batch that would
 * take an organization past BATCH_MAX_PENDING_CHECKS is refused (429) until earlier ones progress. The
 * count is read before the insert, so two batches racing may together pass it by one batch: a soft limit.
 */

import { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_WINDOW_MS } from '../checks/idempotency.ts';
import { formatProblems, validateCheckRequest } from '../checks/request.ts';
import { repairCheckRequest } from '../checks/request-repair.ts';
import { requestHash, splitReuseWindow } from '../checks/submit.ts';
import {
  type BatchAccepted,
  type BatchItem,
  type BatchSummary,
  batchCounts,
  batchSummary,
  MAX_BATCH_CHECKS,
} from '../contract/batch.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type {
  EligibilityCheckResponse,
  RequestCorrection,
  VerdictStatus,
} from '../contract/check-response.ts';
import { uuidv7 } from '../ids.ts';
import {
  type BatchRow,
  countPendingBatchChecks,
  findBatch,
  findBatchByIdempotencyKey,
  insertBatchWithChecks,
  listBatches,
  type NewBatchCheck,
  releaseBatchIdempotencyKey,
  selectBatchCheckIds,
  selectBatchItems,
  selectBatchResults,
} from '../store/batches.ts';
import type { Db } from '../store/db.ts';
import type { ResultRow } from './csv.ts';

export type BatchSubmitResult =
  | { ok: true; accepted: BatchAccepted; replayed: boolean }
  | { ok: false; invalid: string }
  | { ok: false; conflict: string }
  | { ok: false; overLimit: { pending: number; limit: number } };

/** BATCH_MAX_PENDING_CHECKS's default, for callers built without a configuration (tests, the portal harness). */
export const DEFAULT_MAX_PENDING_BATCH_CHECKS = 50_000;

export interface BatchSubmitOptions {
  idempotencyKey?: string;
  /** The directory's canonical id for an id or alias (as for a single submit). */
  canonicalPayerId?: (tradingPartnerServiceId: string) => string | undefined;
  /** Whether the payer's member ids keep their spaces and dashes (as for a single submit); default: no. */
  keepsMemberIdSeparators?: (tradingPartnerServiceId: string) => boolean;
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

/**
 * Each item repaired and validated as a single submit would (request-repair.ts, then request.ts): the
 * problems of an invalid item, or the repaired request and its corrections.
 */
function validateItems(
  checks: unknown[],
  keepsSeparators: BatchSubmitOptions['keepsMemberIdSeparators'],
): { problem?: string; request: unknown; corrections: RequestCorrection[] }[] {
  const today = new Date();
  return checks.map((item) => {
    const payer = (item as { tradingPartnerServiceId?: unknown } | null)?.tradingPartnerServiceId;
    const keep = typeof payer === 'string' && keepsSeparators ? keepsSeparators(payer) : false;
    const { body, corrections } = repairCheckRequest(item, { keepMemberIdSeparators: keep });
    const problems = validateCheckRequest(body, today);
    return problems.length
      ? { problem: formatProblems(problems), request: item, corrections: [] }
      : { request: body, corrections };
  });
}

/**
 * What `submitBatch` would say about each item, without submitting anything: the problem of each invalid
 * item (the message a single submit answers), undefined for a valid one. The portal shows these, by file
 * line, before the user decides to send the valid rows.
 */
export function batchItemProblems(
  checks: unknown[],
  keepsSeparators?: BatchSubmitOptions['keepsMemberIdSeparators'],
): (string | undefined)[] {
  return validateItems(checks, keepsSeparators).map((v) => v.problem);
}

export async function submitBatch(
  db: Db,
  organizationId: string,
  body: unknown,
  options: BatchSubmitOptions,
): Promise<BatchSubmitResult> {
  const envelope = readEnvelope(body);
  if (typeof envelope === 'string') return { ok: false, invalid: envelope };
  const validated = validateItems(envelope.checks, options.keepsMemberIdSeparators);
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
    validated.forEach(({ problem, request: repaired, corrections }, index) => {
      if (problem !== undefined) return;
      const { request: sent, reuseWithinHours } = splitReuseWindow(repaired as EligibilityCheckRequest);
      const canonical = options.canonicalPayerId?.(sent.tradingPartnerServiceId);
      const request =
        canonical && canonical !== sent.tradingPartnerServiceId
          ? { ...sent, tradingPartnerServiceId: canonical }
          : sent;
      items.push({
        id: uuidv7(),
        tradingPartnerServiceId: request.tradingPartnerServiceId,
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
  batch: BatchRow,
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

export const BATCH_ITEM_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;

/** A batch with one page of its items; undefined for a batch that is not this organization's. */
export async function readBatch(
  db: Db,
  organizationId: string,
  id: string,
  page: { status?: (typeof BATCH_ITEM_STATUSES)[number]; after?: number; limit: number },
): Promise<(BatchSummary & { items: BatchItem[]; next: string | null }) | undefined> {
  const batch = await findBatch(db, organizationId, id);
  if (!batch) return undefined;
  const rows = await selectBatchItems(db, batch.id, {
    status: page.status,
    after: page.after ?? -1,
    limit: page.limit + 1,
  });
  const items = rows.slice(0, page.limit).map((r) => ({
    id: r.id,
    index: r.batchIndex,
    status: r.status as BatchItem['status'],
    verdict: (r.verdict as VerdictStatus | null) ?? null,
  }));
  const next = rows.length > page.limit ? String(items.at(-1)!.index) : null;
  return { ...batchSummary(batch), items, next };
}

/** A page of the organization's batches, newest first, and the cursor of the next page (null: the last). */
export async function listOrganizationBatches(
  db: Db,
  organizationId: string,
  page: { before?: string; limit: number },
): Promise<{ batches: BatchSummary[]; next: string | null }> {
  const rows = await listBatches(db, organizationId, { before: page.before, limit: page.limit + 1 });
  const batches = rows.slice(0, page.limit).map(batchSummary);
  return { batches, next: rows.length > page.limit ? batches.at(-1)!.id : null };
}

/** Checks read per query when writing a batch's results: bounded memory for a 10,000-check batch. */
const RESULT_PAGE = 500;

/**
 * A batch's results CSV rows, page by page in request order: each check with its stored status body, the
 * exact JSON `GET /api/eligibility/{id}/status` answers, so `elig batch results --csv` (which reads that
 * route) and the portal's download write the same file. A check still in progress has no body (null), as
 * in the CLI. The caller has checked that the batch is the organization's (`readBatch`).
 */
export async function* batchResultPages(db: Db, batchId: string): AsyncGenerator<ResultRow[]> {
  for (let after = -1; ; ) {
    const rows = await selectBatchResults(db, batchId, { after, limit: RESULT_PAGE });
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      index: r.batchIndex,
      id: r.id,
      body:
        r.status === 'IN_PROGRESS' || r.result === null
          ? null
          : (JSON.parse(r.result) as EligibilityCheckResponse),
    }));
    after = rows.at(-1)!.batchIndex;
  }
}
