/**
 * Accepting a check: validate, insert as IN_PROGRESS and wake the workers, in one round trip. Used by the
 * API and by the portal's "run a check" form, so both apply the same rules.
 *
 * Idempotency: with an `Idempotency-Key`, the same key and the same body within 24 hours return the same
 * check; the same key with another body is a conflict. A unique index on (organization, key) decides races,
 * not a read-then-insert.
 *
 * Payer aliases: a check submitted under an alias of a directory payer is stored under the payer's
 * canonical id, so the worker, the metrics and the status answer all name one payer. The idempotency hash
 * is of the body as sent, so resending it under the same alias replays.
 */
import { createHash } from 'node:crypto';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import { uuidv7 } from '../ids.ts';
import { CHECKS_CHANNEL, wake } from '../store/channels.ts';
import {
  findCheckByIdempotencyKey,
  insertCheck,
  insertCheckUnlessKeyTaken,
  releaseIdempotencyKey,
} from '../store/checks.ts';
import type { Queryable } from '../store/db.ts';
import { type FieldProblem, validateCheckRequest } from './request.ts';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

export type SubmitResult =
  | { ok: true; id: string; replayed: boolean }
  | { ok: false; problems: FieldProblem[] }
  | { ok: false; conflict: string };

export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/** Hash of the body with object keys sorted, so key order and whitespace do not matter. */
function requestHash(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

export async function submitCheck(
  db: Queryable,
  organizationId: string,
  body: unknown,
  options: {
    idempotencyKey?: string;
    wake?: () => void;
    /** The directory's canonical id for an id or alias; undefined keeps the id as sent (unknown: SH01). */
    canonicalPayerId?: (tradingPartnerServiceId: string) => string | undefined;
  } = {},
): Promise<SubmitResult> {
  const problems = validateCheckRequest(body);
  if (problems.length) return { ok: false, problems };
  const sent = body as EligibilityCheckRequest;
  const canonical = options.canonicalPayerId?.(sent.tradingPartnerServiceId);
  const request =
    canonical && canonical !== sent.tradingPartnerServiceId
      ? { ...sent, tradingPartnerServiceId: canonical }
      : sent;
  const key = options.idempotencyKey ?? null;
  const wakeWorkers = () => (options.wake ? options.wake() : wake(db, CHECKS_CHANNEL));
  if (key === null) {
    // Without a key nothing can conflict: the plain insert is the whole job.
    const id = uuidv7();
    await insertCheck(db, {
      id,
      organizationId,
      tradingPartnerServiceId: request.tradingPartnerServiceId,
      request,
    });
    await wakeWorkers();
    return { ok: true, id, replayed: false };
  }
  const hash = requestHash(body);
  for (let attempt = 0; attempt < 3; attempt++) {
    const id = uuidv7();
    const inserted = await insertCheckUnlessKeyTaken(db, {
      id,
      organizationId,
      tradingPartnerServiceId: request.tradingPartnerServiceId,
      request,
      idempotencyKey: key,
      requestHash: hash,
    });
    if (inserted) {
      // The row is committed: wake the workers (coalesced; without a waker, one NOTIFY per check).
      await wakeWorkers();
      return { ok: true, id, replayed: false };
    }
    const prior = await findCheckByIdempotencyKey(db, organizationId, key, IDEMPOTENCY_WINDOW_MS);
    if (!prior) continue; // released between the two statements: try again
    if (prior.expired) {
      await releaseIdempotencyKey(db, prior.id, key);
      continue;
    }
    if (prior.requestHash !== hash) {
      return {
        ok: false,
        conflict: 'Idempotency-Key was already used with a different request body in the last 24 hours.',
      };
    }
    return { ok: true, id: prior.id, replayed: true };
  }
  throw new Error('idempotent insert did not settle');
}
