/**
 * The one claim statement of both queues: `checks` (the check worker) and `webhook_events` (the webhook
 * dispatcher). The domain tables are the queue (design.md "Work queue").
 *
 * Why claiming is safe under concurrency: the inner SELECT locks candidate rows with FOR UPDATE SKIP
 * LOCKED, so two workers never pick the same row at the same time, and the UPDATE stamps a lease
 * (`locked_until`, `locked_by`) and counts the attempt in the same statement. A row whose lease expired
 * (its worker crashed or hung) is claimable again. Every later write of a claimed row is guarded by
 * `locked_by = <me>` (see the other files of this folder), so a worker that lost its lease cannot
 * overwrite what the worker that took over records, and a row is finished exactly once.
 *
 * What differs between the two queues is only the table, which state is still pending, and the columns
 * handed to the worker; the order (oldest due first) and the lease are the same.
 */
import { getTableColumns } from 'drizzle-orm';
import type { Queryable } from '../db.ts';
import { checks, webhookEvents } from '../schema.ts';

/** A queue: its table and the condition of a row still waiting for work. */
export const QUEUES = {
  checks: { table: checks, name: 'checks', pending: `status = 'IN_PROGRESS'` },
  webhookEvents: { table: webhookEvents, name: 'webhook_events', pending: `state = 'pending'` },
} as const;

type Queue = (typeof QUEUES)[keyof typeof QUEUES];
type Row<Q extends Queue> = Q['table']['$inferSelect'];

/**
 * `q.column AS "key"` for each drizzle key: the SQL names come from the schema, so a renamed column or key
 * is a compile error here or in the caller's `Pick`, never a silently missing field.
 */
function returning<Q extends Queue>(queue: Q, keys: readonly (keyof Row<Q> & string)[]): string {
  const columns = getTableColumns(queue.table) as Record<string, { name: string }>;
  return keys.map((key) => `q.${columns[key]!.name} AS "${key}"`).join(', ');
}

/**
 * Leases up to `limit` due rows of `queue` to `workerId` for `leaseMs` and counts their attempt; returns
 * the `keys` of each claimed row, oldest due first.
 */
export async function claimDue<Q extends Queue, K extends keyof Row<Q> & string>(
  db: Queryable,
  queue: Q,
  keys: readonly K[],
  claim: { workerId: string; limit: number; leaseMs: number },
): Promise<Pick<Row<Q>, K>[]> {
  const { rows } = await db.query<Pick<Row<Q>, K>>(
    `UPDATE ${queue.name} q
        SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = q.attempts + 1
      WHERE q.id IN (
        SELECT id FROM ${queue.name}
         WHERE ${queue.pending} AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
      RETURNING ${returning(queue, keys)}`,
    [claim.limit, claim.workerId, claim.leaseMs],
  );
  return rows;
}

/**
 * How long until the next pending row of `queue` is due (or its lease expires); undefined when none is
 * pending. The runner sleeps that long when no wake-up comes first.
 */
export async function nextDueIn(db: Queryable, queue: Queue): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM (min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now())) * 1000 AS ms
       FROM ${queue.name} WHERE ${queue.pending}`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
}
