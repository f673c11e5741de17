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
import type { RequestCorrection } from '../contract/check-response.ts';
import { uuidv7 } from '../ids.ts';
import { CHECKS_CHANNEL, wake } from '../store/channels.ts';
import {
  findCheckByIdempotencyKey,
  insertCheck,
  insertCheckUnlessKeyTaken,
  releaseIdempotencyKey,
} from '../store/checks.ts';
import type { Queryable } from '../store/db.ts';
import { IDEMPOTENCY_WINDOW_MS, insertIdempotently } from './idempotency.ts';
import { type FieldProblem, validateCheckRequest } from './request.ts';
import { repairCheckRequest } from './request-repair.ts';

export type SubmitResult =
  | { ok: true; id: string; replayed: boolean; corrections: RequestCorrection[] }
  | { ok: false; problems: FieldProblem[] }
  | { ok: false; conflict: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/** Hash of the body with object keys sorted, so key order and whitespace do not matter. */
export function requestHash(body: unknown): string {
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

/**
 * The submit's `reuseWithinHours` is how the check may be answered, not part of the question: it is kept
 * apart from the stored request (which is what the payer is asked). null: the organization default applies
 * at insert; 0: never reused (also whenever `allowReuse` is false).
 */
export function splitReuseWindow(
  body: EligibilityCheckRequest,
  allowReuse = true,
): { request: EligibilityCheckRequest; reuseWithinHours: number | null } {
  const { reuseWithinHours, ...request } = body;
  return { request, reuseWithinHours: allowReuse ? (reuseWithinHours ?? null) : 0 };
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
    /** Whether the payer's member ids keep their spaces and dashes (payer directory); default: no. */
    keepsMemberIdSeparators?: (tradingPartnerServiceId: string) => boolean;
    /**
     * false: this check is never answered from an earlier one, whatever the body or the organization
     * default say (the runs of a monitor, whose point is to ask the payer). Default: true.
     */
    allowReuse?: boolean;
  } = {},
): Promise<SubmitResult> {
  // Repairs run before validation, so a repairable value (a date written 1980-01-15) is accepted.
  const payerId =
    isRecord(body) && typeof body.tradingPartnerServiceId === 'string' ? body.tradingPartnerServiceId : '';
  const repaired = repairCheckRequest(body, {
    keepMemberIdSeparators: payerId ? options.keepsMemberIdSeparators?.(payerId) : false,
  });
  const problems = validateCheckRequest(repaired.body);
  if (problems.length) return { ok: false, problems };
  const corrections = repaired.corrections;
  const requestCorrections = corrections.length ? corrections : null;
  const { request: asked, reuseWithinHours } = splitReuseWindow(
    repaired.body as EligibilityCheckRequest,
    options.allowReuse,
  );
  const canonical = options.canonicalPayerId?.(asked.tradingPartnerServiceId);
  const request =
    canonical && canonical !== asked.tradingPartnerServiceId
      ? { ...asked, tradingPartnerServiceId: canonical }
      : asked;
  const key = options.idempotencyKey ?? null;
  const wakeWorkers = () => (options.wake ? options.wake() : wake(db, CHECKS_CHANNEL));
  // The new check's row, but for its id (and the key's columns when there is a key).
  const check = {
    organizationId,
    tradingPartnerServiceId: request.tradingPartnerServiceId,
    request,
    requestCorrections,
    reuseWithinHours,
  };
  if (key === null) {
    // Without a key nothing can conflict: the plain insert is the whole job.
    const id = uuidv7();
    await insertCheck(db, { id, ...check });
    await wakeWorkers();
    return { ok: true, id, replayed: false, corrections };
  }
  const hash = requestHash(body);
  const settled = await insertIdempotently(hash, {
    insert: async () => {
      const id = uuidv7();
      const inserted = await insertCheckUnlessKeyTaken(db, {
        id,
        ...check,
        idempotencyKey: key,
        requestHash: hash,
      });
      return inserted ? id : undefined;
    },
    holder: () => findCheckByIdempotencyKey(db, organizationId, key, IDEMPOTENCY_WINDOW_MS),
    release: (holder) => releaseIdempotencyKey(db, holder.id, key),
    replay: async (holder) => holder.id,
  });
  if (!settled.ok) return settled;
  // A new row is committed: wake the workers (coalesced; without a waker, one NOTIFY per check).
  if (!settled.replayed) await wakeWorkers();
  return { ok: true, id: settled.value, replayed: settled.replayed, corrections };
}
