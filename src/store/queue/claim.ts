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
 *
 * Checks have two classes of work (`priority`): interactive checks (0: single submits, someone is waiting)
 * and background checks (above 0: batch items). `claimDueChecks` claims both in one statement: interactive
 * checks first, then fills what is left (at most `backgroundLimit`) with background checks. Within each
 * class the checks are taken round-robin across the organizations that have any: each claim gives every
 * such organization an equal share, its oldest due checks first (ties drawn at random, so claims of a
 * single row are shared too). So one organization's 10,000-check batch cannot hold another organization's
 * batch back, let alone its single checks, and one organization flooding single checks through many keys
 * cannot make another organization's front desk wait behind its queue (issue 26: first come, first served
 * took another organization's p50 from 1.3 s to 30.6 s with one worker and a 1 s payer). Inside an
 * organization, its share rotates across the connections its checks go through (`checks.connection`,
 * the payer's first connection at intake): 2,000 checks through one clearinghouse account, which can only
 * take a handful at once, must not queue the same organization's checks for another account behind them
 * (issue 25: the second connection's p99 went 70-108x its unloaded p99 during such a flood).
 * Why round-robin rather than a cap per organization: a cap must count every organization's checks
 * in flight across all workers on each claim and leaves capacity idle when only one organization has work;
 * the share costs one index probe per organization with work and uses all the capacity. The
 * (organization, connection) queues are found with a loose index scan (a recursive CTE that jumps from
 * one pair to the next in `checks_interactive_due_idx` or `checks_background_due_idx`), so the cost grows
 * with organizations and their connections, not with queued checks. The caller (the check worker) also keeps some of its slots for
 * interactive checks (see check-worker.ts), so a batch never leaves a single check waiting for a free slot.
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
 * the `keys` of each claimed row, oldest due first. `only` narrows the pending rows further (a constant SQL
 * condition, e.g. the interactive checks' `priority = 0`).
 */
export async function claimDue<Q extends Queue, K extends keyof Row<Q> & string>(
  db: Queryable,
  queue: Q,
  keys: readonly K[],
  claim: { workerId: string; limit: number; leaseMs: number },
  only?: string,
): Promise<Pick<Row<Q>, K>[]> {
  const { rows } = await db.query<Pick<Row<Q>, K>>(
    `UPDATE ${queue.name} q
        SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = q.attempts + 1
      WHERE q.id IN (
        SELECT id FROM ${queue.name}
         WHERE ${queue.pending}${only ? ` AND ${only}` : ''} AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
      RETURNING ${returning(queue, keys)}`,
    [claim.limit, claim.workerId, claim.leaseMs],
  );
  return rows;
}

/** The organization's webhook columns as a claimed event carries them (sealed secrets, as stored). */
export interface ClaimedWebhookSettings {
  webhookUrl: string | null;
  webhookSecret: string | null;
  webhookPreviousSecret: string | null;
  webhookPreviousSecretExpiresAt: Date | null;
}

/**
 * `claimDue` for the webhook outbox, with each event's organization's webhook settings read in the same
 * statement (as they are at the claim), so a delivery costs no lookup of its own.
 */
export async function claimDueWebhookEvents<K extends keyof Row<typeof QUEUES.webhookEvents> & string>(
  db: Queryable,
  keys: readonly K[],
  claim: { workerId: string; limit: number; leaseMs: number },
): Promise<(Pick<Row<typeof QUEUES.webhookEvents>, K> & ClaimedWebhookSettings)[]> {
  const { rows } = await db.query<Pick<Row<typeof QUEUES.webhookEvents>, K> & ClaimedWebhookSettings>(
    `UPDATE webhook_events q
        SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = q.attempts + 1
       FROM organizations o
      WHERE o.id = q.organization_id AND q.id IN (
        SELECT id FROM webhook_events
         WHERE ${QUEUES.webhookEvents.pending} AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE OF webhook_events SKIP LOCKED)
      RETURNING ${returning(QUEUES.webhookEvents, keys)}, o.webhook_url AS "webhookUrl",
                o.webhook_secret AS "webhookSecret", o.webhook_previous_secret AS "webhookPreviousSecret",
                o.webhook_previous_secret_expires_at AS "webhookPreviousSecretExpiresAt"`,
    [claim.limit, claim.workerId, claim.leaseMs],
  );
  return rows;
}

/**
 * How long until the next pending row of `queue` is due (or its lease expires); undefined when none is
 * pending. The runner sleeps that long when no wake-up comes first.
 */
export async function nextDueIn(
  db: Queryable,
  queue: Queue,
  skipConnections: readonly string[] = [],
): Promise<number | undefined> {
  // Checks of connections the caller skips do not count: it would wake only to claim nothing.
  const skip = queue === QUEUES.checks && skipConnections.length ? ' AND connection <> ALL($1::text[])' : '';
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM (min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now())) * 1000 AS ms
       FROM ${queue.name} WHERE ${queue.pending}${skip}`,
    skip ? [skipConnections] : [],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
}

/**
 * The (organization, connection) pairs with pending checks of one class: a loose index scan, one probe per
 * pair, jumping from one pair to the next in `checks_interactive_due_idx` or `checks_background_due_idx`.
 */
function queuesWith(name: string, klass: string): string {
  return `${name}(org, conn) AS (
       (SELECT organization_id, connection FROM checks
         WHERE status = 'IN_PROGRESS' AND ${klass} ORDER BY organization_id, connection LIMIT 1)
       UNION ALL
       SELECT n.organization_id, n.connection
         FROM ${name} CROSS JOIN LATERAL (
           SELECT organization_id, connection FROM checks
            WHERE status = 'IN_PROGRESS' AND ${klass}
              AND (organization_id, connection) > (${name}.org, ${name}.conn)
            ORDER BY organization_id, connection LIMIT 1) n
     )`;
}

/**
 * Up to `limit` of each (organization, connection) queue's oldest due checks of one class, locked, and
 * ranked 1, 2, ... within their organization (`share`) so that an organization's turn goes to each of its
 * connections in rotation: its first check through every connection, then its second, and so on (ties at
 * random). Taking the lowest shares first gives every organization the same share, and inside it every
 * connection. Connections in `$5` (saturated in the claiming process) are skipped.
 */
function offeredBy(queues: string, klass: string, limit: string): string {
  return `SELECT ranked.id, row_number() OVER (PARTITION BY ranked.organization_id ORDER BY ranked.turn, random()) AS share
         FROM (
           SELECT o.id, o.organization_id,
                  row_number() OVER (PARTITION BY o.organization_id, o.connection ORDER BY o.next_attempt_at) AS turn
             FROM ${queues} CROSS JOIN LATERAL (
               SELECT id, organization_id, connection, next_attempt_at FROM checks
                WHERE organization_id = ${queues}.org AND connection = ${queues}.conn
                  AND status = 'IN_PROGRESS' AND ${klass}
                  AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
                ORDER BY next_attempt_at
                LIMIT ${limit}
                FOR UPDATE SKIP LOCKED) o
            WHERE ${queues}.org IS NOT NULL AND ${queues}.conn <> ALL($5::text[])
         ) ranked`;
}

/**
 * Leases up to `limit` due checks to `workerId`: interactive checks first, then at most `backgroundLimit`
 * background checks, each class shared round-robin across organizations (see the top of this file).
 * Returned interactive first, oldest due first within each class.
 */
export async function claimDueChecks<K extends keyof Row<typeof QUEUES.checks> & string>(
  db: Queryable,
  keys: readonly K[],
  claim: {
    workerId: string;
    limit: number;
    backgroundLimit: number;
    leaseMs: number;
    /** Connections to leave alone this time: the claiming process already has enough checks for them. */
    skipConnections?: readonly string[];
  },
): Promise<Pick<Row<typeof QUEUES.checks>, K>[]> {
  type Claimed = Pick<Row<typeof QUEUES.checks>, K>;
  const queue = QUEUES.checks;
  // Ties are broken at random, not by id: a busy worker claims one row at a time (limit 1), and a fixed
  // tie-break would hand every such claim to the same organization. Offered rows not taken are locked
  // only until this statement ends.
  const { rows } = await db.query<Claimed>(
    `WITH RECURSIVE ${queuesWith('interactive_queues', 'priority = 0')},
     ${queuesWith('background_queues', 'priority > 0')},
     interactive AS (
       SELECT id FROM (${offeredBy('interactive_queues', 'priority = 0', '$1')}) offered
        ORDER BY share, random() LIMIT $1
     ),
     background AS (
       SELECT id FROM (${offeredBy('background_queues', 'priority > 0', 'greatest($4::int, 0)')}) offered
        ORDER BY share, random()
        LIMIT greatest(0, least($4::int, $1::int - (SELECT count(*) FROM interactive)))
     ),
     claimed AS (
       UPDATE checks q
          SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = q.attempts + 1
        WHERE q.id IN (SELECT id FROM interactive UNION ALL SELECT id FROM background)
        RETURNING q.*
     )
     SELECT ${returning(queue, keys)} FROM claimed q ORDER BY q.priority > 0, q.next_attempt_at`,
    [claim.limit, claim.workerId, claim.leaseMs, claim.backgroundLimit, claim.skipConnections ?? []],
  );
  return rows;
}
