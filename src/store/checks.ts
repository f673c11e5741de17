/**
 * The `checks` table outside the queue: reading checks for the API, the portal and metrics. The queue's
 * own statements (claim, retry, release, finish) are in src/store/queue/; row typing as described at the
 * top of organizations.ts.
 */
import type { Queryable } from './db.ts';
import type { checks } from './schema.ts';

export type CheckRow = typeof checks.$inferSelect;

/** A new check, IN_PROGRESS and due now. */
export async function insertCheck(
  db: Queryable,
  check: Pick<CheckRow, 'id' | 'organizationId' | 'tradingPartnerServiceId' | 'request'>,
): Promise<void> {
  await db.query(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request)
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4)`,
    [check.id, check.organizationId, check.tradingPartnerServiceId, check.request],
  );
}

/**
 * A new check under an idempotency key; false (and nothing written) when the organization already has a
 * check with that key. The unique index decides races between parallel submissions.
 */
export async function insertCheckUnlessKeyTaken(
  db: Queryable,
  check: Pick<CheckRow, 'id' | 'organizationId' | 'tradingPartnerServiceId' | 'request'> & {
    idempotencyKey: string;
    requestHash: string;
  },
): Promise<boolean> {
  const { rows } = await db.query<Pick<CheckRow, 'id'>>(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, idempotency_key, request_hash)
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5, $6)
     ON CONFLICT (organization_id, idempotency_key) DO NOTHING
     RETURNING id`,
    [
      check.id,
      check.organizationId,
      check.tradingPartnerServiceId,
      check.request,
      check.idempotencyKey,
      check.requestHash,
    ],
  );
  return rows.length > 0;
}

/** The check holding an idempotency key, and whether it is older than `windowMs`. */
export async function findCheckByIdempotencyKey(
  db: Queryable,
  organizationId: string,
  idempotencyKey: string,
  windowMs: number,
): Promise<(Pick<CheckRow, 'id' | 'requestHash'> & { expired: boolean }) | undefined> {
  const { rows } = await db.query<Pick<CheckRow, 'id' | 'requestHash'> & { expired: boolean }>(
    `SELECT id, request_hash AS "requestHash", created_at < now() - $3 * interval '1 millisecond' AS expired
       FROM checks WHERE organization_id = $1 AND idempotency_key = $2`,
    [organizationId, idempotencyKey, windowMs],
  );
  return rows[0];
}

/** Frees an expired idempotency key for reuse (unless another request freed it already). */
export async function releaseIdempotencyKey(
  db: Queryable,
  id: string,
  idempotencyKey: string,
): Promise<void> {
  await db.query('UPDATE checks SET idempotency_key = NULL WHERE id = $1 AND idempotency_key = $2', [
    id,
    idempotencyKey,
  ]);
}

/** A check's status and stored result body, scoped to its organization (another's reads as absent). */
export async function findCheckResult(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<Pick<CheckRow, 'status' | 'result'> | undefined> {
  const { rows } = await db.query<Pick<CheckRow, 'status' | 'result'>>(
    'SELECT status, result FROM checks WHERE id = $1 AND organization_id = $2',
    [id, organizationId],
  );
  return rows[0];
}

export type CheckDetailRow = Pick<
  CheckRow,
  'id' | 'status' | 'request' | 'result' | 'attempts' | 'createdAt' | 'completedAt'
>;

/** One check in full, scoped to its organization. */
export async function findCheck(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<CheckDetailRow | undefined> {
  const { rows } = await db.query<CheckDetailRow>(
    `SELECT id, status, request, result, attempts, created_at AS "createdAt", completed_at AS "completedAt"
       FROM checks WHERE id = $1 AND organization_id = $2`,
    [id, organizationId],
  );
  return rows[0];
}

export type CheckSummaryRow = Pick<
  CheckRow,
  'id' | 'status' | 'tradingPartnerServiceId' | 'outcomeCode' | 'createdAt' | 'completedAt'
> & { memberId: string | null };

/** Filters of a page of checks; each is optional and already validated by the caller. */
export interface CheckPageQuery {
  status?: string;
  tradingPartnerServiceId?: string;
  /** Inclusive ISO dates (YYYY-MM-DD) on the creation time, UTC. */
  from?: string;
  to?: string;
  /** Keyset cursor: only checks with a smaller id. */
  before?: string;
  limit: number;
}

/** Up to `limit` checks of an organization, newest first (ids are time-ordered). */
export async function selectCheckPage(
  db: Queryable,
  organizationId: string,
  query: CheckPageQuery,
): Promise<CheckSummaryRow[]> {
  const where = ['organization_id = $1'];
  const params: unknown[] = [organizationId];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (query.status) add('status = ?', query.status);
  if (query.tradingPartnerServiceId) add('trading_partner_service_id = ?', query.tradingPartnerServiceId);
  if (query.from) add('created_at >= ?::date', query.from);
  if (query.to) add('created_at < ?::date + 1', query.to);
  if (query.before) add('id < ?', query.before);
  params.push(query.limit);
  const { rows } = await db.query<CheckSummaryRow>(
    `SELECT id, status, trading_partner_service_id AS "tradingPartnerServiceId",
            request->'subscriber'->>'memberId' AS "memberId", outcome_code AS "outcomeCode",
            created_at AS "createdAt", completed_at AS "completedAt"
       FROM checks WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/** How many checks are IN_PROGRESS (the queue depth). */
export async function countChecksInProgress(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM checks WHERE status = 'IN_PROGRESS'",
  );
  return rows[0]?.n ?? 0;
}

/** Age in seconds of the oldest IN_PROGRESS check; null when there is none. */
export async function oldestCheckInProgressAgeSeconds(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ s: number | null }>(
    "SELECT extract(epoch FROM now() - min(created_at))::float8 AS s FROM checks WHERE status = 'IN_PROGRESS'",
  );
  return rows[0]?.s ?? null;
}
