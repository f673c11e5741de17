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
import { CHECKS_CHANNEL } from '../store/channels.ts';
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
  const wake = () =>
    options.wake ? options.wake() : db.query('SELECT pg_notify($1, $2)', [CHECKS_CHANNEL, '']);
  if (key === null) {
    // Without a key nothing can conflict: the plain insert is the whole job.
    const id = uuidv7();
    await db.query(
      `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request)
       VALUES ($1, $2, 'IN_PROGRESS', $3, $4)`,
      [id, organizationId, request.tradingPartnerServiceId, request],
    );
    await wake();
    return { ok: true, id, replayed: false };
  }
  const hash = requestHash(body);
  for (let attempt = 0; attempt < 3; attempt++) {
    const id = uuidv7();
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, idempotency_key, request_hash)
       VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5, $6)
       ON CONFLICT (organization_id, idempotency_key) DO NOTHING
       RETURNING id`,
      [id, organizationId, request.tradingPartnerServiceId, request, key, hash],
    );
    if (rows.length) {
      // The row is committed: wake the workers (coalesced; without a waker, one NOTIFY per check).
      await wake();
      return { ok: true, id, replayed: false };
    }
    const existing = await db.query<{ id: string; request_hash: string; expired: boolean }>(
      `SELECT id, request_hash, created_at < now() - $3 * interval '1 millisecond' AS expired
         FROM checks WHERE organization_id = $1 AND idempotency_key = $2`,
      [organizationId, key, IDEMPOTENCY_WINDOW_MS],
    );
    const prior = existing.rows[0];
    if (!prior) continue; // released between the two statements: try again
    if (prior.expired) {
      await db.query('UPDATE checks SET idempotency_key = NULL WHERE id = $1 AND idempotency_key = $2', [
        prior.id,
        key,
      ]);
      continue;
    }
    if (prior.request_hash !== hash) {
      return {
        ok: false,
        conflict: 'Idempotency-Key was already used with a different request body in the last 24 hours.',
      };
    }
    return { ok: true, id: prior.id, replayed: true };
  }
  throw new Error('idempotent insert did not settle');
}
