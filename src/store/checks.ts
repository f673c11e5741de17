/**
 * The `checks` table outside the queue: reading checks for the API, the portal and metrics. The queue's
 * own statements (claim, retry, release, finish) are in src/store/queue/; row typing as described at the
 * top of organizations.ts.
 */
import type { Queryable } from './db.ts';
import type { checks } from './schema.ts';

export type CheckRow = typeof checks.$inferSelect;

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
