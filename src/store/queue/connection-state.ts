/**
 * A connection's rate limit and 429 back-off, shared by every worker process (table connection_state).
 *
 * The rate limit is a token bucket kept in one row: a take refills `tokens` by `rate × seconds since
 * refilled_at` (capped at the burst), then spends one, in a single UPDATE, so two processes taking at once
 * serialise on the row lock and can never both spend the last token. A failed take spends nothing; the
 * caller waits about one token's time. The back-off only ever moves later (`greatest`), so a short Retry-After read by one
 * process never shortens a longer one read by another.
 */
import type { Queryable } from '../db.ts';

/** Makes the connection's row, its bucket full (idempotent; run before the first take). */
export async function ensureConnectionState(db: Queryable, connection: string, burst: number): Promise<void> {
  await db.query(
    `INSERT INTO connection_state (connection, tokens, refilled_at) VALUES ($1, $2, clock_timestamp())
     ON CONFLICT (connection) DO NOTHING`,
    [connection, burst],
  );
}

/** Spends one token: true when one was there (after the refill), false when the bucket is empty. */
export async function takeConnectionToken(
  db: Queryable,
  connection: string,
  ratePerSecond: number,
  burst: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connection_state s
        SET tokens = least($3, s.tokens + $2 * extract(epoch FROM clock_timestamp() - s.refilled_at)) - 1,
            refilled_at = clock_timestamp()
      WHERE connection = $1
        AND least($3, s.tokens + $2 * extract(epoch FROM clock_timestamp() - s.refilled_at)) >= 1`,
    [connection, ratePerSecond, burst],
  );
  return rowCount === 1;
}

/** Backs the connection off until `untilMs` (epoch ms) at least. */
export async function pauseConnection(db: Queryable, connection: string, untilMs: number): Promise<void> {
  await db.query(
    `INSERT INTO connection_state AS s (connection, paused_until) VALUES ($1, to_timestamp($2 / 1000.0))
     ON CONFLICT (connection) DO UPDATE
       SET paused_until = greatest(coalesce(s.paused_until, to_timestamp(0)), to_timestamp($2 / 1000.0))`,
    [connection, untilMs],
  );
}
