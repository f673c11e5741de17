/**
 * Accepting a check: validate, insert as IN_PROGRESS and wake the workers, in one round trip. Used by the
 * API and by the portal's "run a check" form, so both apply the same rules.
 *
 * Idempotency: with an `Idempotency-Key`, the same key and the same body within 24 hours return the same
 * check; the same key with another body is a conflict. A unique index on (organization, key) decides races,
 * not a read-then-insert.
 *
 * The body goes through the intake (intake.ts: repair, validation, the payer's canonical id) as every entry
 * point's does. The idempotency hash is of the body as sent, so resending it under the same alias replays.
 */
import type { RequestCorrection } from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import { uuidv7 } from '../ids.ts';
import { CHECKS_CHANNEL, wake } from '../store/channels.ts';
import {
  findCheckByIdempotencyKey,
  insertCheck,
  insertCheckUnlessKeyTaken,
  releaseIdempotencyKey,
} from '../store/checks.ts';
import type { Queryable } from '../store/db.ts';
import { priceCharges } from './charges.ts';
import { IDEMPOTENCY_WINDOW_MS, insertIdempotently, requestHash } from './idempotency.ts';
import { type PayerLookup, takeIn } from './intake.ts';
import type { FieldProblem } from './request.ts';

export type SubmitResult =
  | { ok: true; id: string; replayed: boolean; corrections: RequestCorrection[] }
  | { ok: false; problems: FieldProblem[] }
  | { ok: false; conflict: string };

export async function submitCheck(
  db: Queryable,
  organizationId: string,
  body: unknown,
  options: {
    idempotencyKey?: string;
    wake?: () => void;
    /** The payer directory (the intake's canonical ids and member id rules). */
    payers?: PayerLookup;
    /**
     * false: this check is never answered from an earlier one, whatever the body or the organization
     * default say. Default: true.
     */
    allowReuse?: boolean;
  } = {},
): Promise<SubmitResult> {
  const taken = takeIn(body, { payers: options.payers, allowReuse: options.allowReuse });
  if (!taken.ok) return taken;
  const { request, reuseWithinHours, corrections, connection } = taken;
  const requestCorrections = corrections.length ? corrections : null;
  let charges: PricedCharge[] | null = null;
  if (taken.charges.length) {
    const priced = await priceCharges(
      db,
      organizationId,
      request.tradingPartnerServiceId,
      taken.charges,
      'encounter.charges',
    );
    if (!priced.ok) return { ok: false, problems: priced.problems };
    charges = priced.charges;
  }
  const key = options.idempotencyKey ?? null;
  const wakeWorkers = () => (options.wake ? options.wake() : wake(db, CHECKS_CHANNEL));
  // The new check's row, but for its id (and the key's columns when there is a key).
  const check = {
    organizationId,
    tradingPartnerServiceId: request.tradingPartnerServiceId,
    request,
    requestCorrections,
    reuseWithinHours,
    connection,
    charges,
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
