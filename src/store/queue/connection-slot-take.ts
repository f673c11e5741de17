/**
 * Takes one of a connection's concurrency slots for a payer call, across every worker process.
 *
 * Why a table of slot rows rather than advisory locks: a session advisory lock belongs to one pooled
 * connection, so it would pin a database connection for the whole payer call (seconds), and a process
 * that dies mid-call frees it only when PostgreSQL notices the dead session. A slot row instead carries
 * its holder and an expiry (the call's time budget plus a margin): the holder frees it when the call ends,
 * and a crashed holder's slot is free again once it expires. `FOR UPDATE SKIP LOCKED` lets concurrent
 * takers pick different rows without waiting on each other; the `slot < $2` bound makes a lowered limit
 * effective at once (rows above it are ignored). A connection paused by a 429 (connection_state) gives
 * no slot until the pause ends.
 *
 * The rows are made by `ensureConnectionSlots`, in its own statement: creating them inside the taking
 * statement would have two processes insert the same keys while holding row locks, which deadlocks.
 */
import type { Queryable } from '../db.ts';

export type SlotTake = { slot: number } | { pausedForMs: number } | { busy: true };

export async function takeConnectionSlot(
  db: Queryable,
  connection: string,
  concurrency: number,
  holder: string,
  holdMs: number,
): Promise<SlotTake> {
  const { rows } = await db.query<{ slot: number | null; paused_ms: number | null }>(
    `WITH pause AS (
       SELECT ceil(extract(epoch FROM paused_until - clock_timestamp()) * 1000)::int AS ms
         FROM connection_state WHERE connection = $1 AND paused_until > clock_timestamp()
     ), free AS (
       SELECT slot FROM connection_slots
        WHERE connection = $1 AND slot < $2 AND (holder IS NULL OR expires_at < clock_timestamp())
          AND NOT EXISTS (SELECT 1 FROM pause)
        ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED
     ), taken AS (
       UPDATE connection_slots s
          SET holder = $3, expires_at = clock_timestamp() + $4 * interval '1 millisecond'
         FROM free WHERE s.connection = $1 AND s.slot = free.slot
       RETURNING s.slot
     )
     SELECT (SELECT slot FROM taken) AS slot, (SELECT ms FROM pause) AS paused_ms`,
    [connection, concurrency, holder, holdMs],
  );
  const row = rows[0];
  if (row?.slot !== null && row?.slot !== undefined) return { slot: Number(row.slot) };
  if (row?.paused_ms) return { pausedForMs: Math.max(1, Number(row.paused_ms)) };
  return { busy: true };
}

/** Makes the slot rows 0 … concurrency-1 of a connection (idempotent; run before the first take). */
export async function ensureConnectionSlots(
  db: Queryable,
  connection: string,
  concurrency: number,
): Promise<void> {
  await db.query(
    `INSERT INTO connection_slots (connection, slot)
     SELECT $1, g FROM generate_series(0, $2 - 1) AS g
     ON CONFLICT DO NOTHING`,
    [connection, concurrency],
  );
}

/** Gives a slot back (only its holder can). */
export async function releaseConnectionSlot(
  db: Queryable,
  connection: string,
  slot: number,
  holder: string,
): Promise<void> {
  await db.query(
    `UPDATE connection_slots SET holder = NULL, expires_at = NULL
      WHERE connection = $1 AND slot = $2 AND holder = $3`,
    [connection, slot, holder],
  );
}
