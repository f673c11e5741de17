/**
 * The `checks` table outside the queue: reading checks for the API, the portal and metrics. The queue's
 * own statements (claim, retry, release, finish) are in src/store/queue/; row typing as described at the
 * top of organizations.ts.
 */
import { idempotencyKeyStatements, ownedRowLookup, type Queryable } from './db.ts';
import type { checks } from './schema.ts';

export type CheckRow = typeof checks.$inferSelect;

type NewCheck = Pick<CheckRow, 'id' | 'organizationId' | 'tradingPartnerServiceId' | 'request'> &
  Partial<Pick<CheckRow, 'requestCorrections' | 'reuseWithinHours'>>;

/**
 * The reuse window stored on a new check: the submit's own (0: never), else the organization's default
 * as it is now, read in the insert itself (no extra round trip). `$2` is the organization id.
 */
const REUSE_WINDOW = (param: string) =>
  `COALESCE(${param}::int, (SELECT o.reuse_within_hours FROM organizations o WHERE o.id = $2))`;

/** A JSON array as a jsonb parameter: the drivers would send a JS array as a PostgreSQL array. */
const corrections = (check: NewCheck) =>
  check.requestCorrections == null ? null : JSON.stringify(check.requestCorrections);

/** A new check, IN_PROGRESS and due now. */
export async function insertCheck(db: Queryable, check: NewCheck): Promise<void> {
  await db.query(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, request_corrections,
                         reuse_within_hours)
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5::jsonb, ${REUSE_WINDOW('$6')})`,
    [
      check.id,
      check.organizationId,
      check.tradingPartnerServiceId,
      check.request,
      corrections(check),
      check.reuseWithinHours ?? null,
    ],
  );
}

/**
 * A new check under an idempotency key; false (and nothing written) when the organization already has a
 * check with that key. The unique index decides races between parallel submissions.
 */
export async function insertCheckUnlessKeyTaken(
  db: Queryable,
  check: NewCheck & { idempotencyKey: string; requestHash: string },
): Promise<boolean> {
  const { rows } = await db.query<Pick<CheckRow, 'id'>>(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, idempotency_key, request_hash,
                         request_corrections, reuse_within_hours)
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5, $6, $7::jsonb, ${REUSE_WINDOW('$8')})
     ON CONFLICT (organization_id, idempotency_key) DO NOTHING
     RETURNING id`,
    [
      check.id,
      check.organizationId,
      check.tradingPartnerServiceId,
      check.request,
      check.idempotencyKey,
      check.requestHash,
      corrections(check),
      check.reuseWithinHours ?? null,
    ],
  );
  return rows.length > 0;
}

const idempotencyKeys = idempotencyKeyStatements<Pick<CheckRow, 'id' | 'requestHash'>>(
  'checks',
  'id, request_hash AS "requestHash"',
);
/** The check holding an idempotency key, and whether it is older than `windowMs`. */
export const findCheckByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired idempotency key for reuse (unless another request freed it already). */
export const releaseIdempotencyKey = idempotencyKeys.release;

/** A check's status and stored result body, scoped to its organization (another's reads as absent). */
export const findCheckResult = ownedRowLookup<Pick<CheckRow, 'status' | 'result'>>(
  'checks',
  'status, result',
);

export type CheckDetailRow = Pick<
  CheckRow,
  'id' | 'status' | 'request' | 'result' | 'attempts' | 'createdAt' | 'completedAt'
>;

/** One check in full, scoped to its organization. */
export const findCheck = ownedRowLookup<CheckDetailRow>(
  'checks',
  `id, status, request, result, attempts, created_at AS "createdAt", completed_at AS "completedAt"`,
);

export type CheckSummaryRow = Pick<
  CheckRow,
  'id' | 'status' | 'verdict' | 'tradingPartnerServiceId' | 'outcomeCode' | 'createdAt' | 'completedAt'
> & {
  memberId: string | null;
  firstName: string | null;
  lastName: string | null;
  dateOfBirth: string | null;
};

/**
 * One search term, already normalised by the caller (src/checks/list.ts): it matches a check when it is
 * the start of the subscriber's first or last name, part of the member id (both upper-cased, the id
 * without dashes), or, when `dateOfBirth` is set, the date of birth.
 */
export interface CheckSearchTerm {
  /** Upper case, at least one character. */
  text: string;
  /** `text` read as a date (YYYYMMDD), when it is one. */
  dateOfBirth?: string;
}

/** Filters of a page of checks; each is optional and already validated by the caller. */
export interface CheckPageQuery {
  status?: string;
  verdict?: string;
  tradingPartnerServiceId?: string;
  /** Checks created at or after this instant. */
  createdFrom?: Date;
  /** Checks created before this instant. */
  createdBefore?: Date;
  /** Every term must match (see CheckSearchTerm). PHI: parameters only, never in the SQL text or a log. */
  search?: CheckSearchTerm[];
  /** Keyset cursor: only checks with a smaller id. */
  before?: string;
  limit: number;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Up to `limit` checks of an organization, newest first (ids are time-ordered). The search runs here, in
 * the organization's rows only (`organization_id = $1` is always the first condition), on the stored
 * request; a purged check keeps no name or member id and is not found by a search.
 */
export async function selectCheckPage(
  db: Queryable,
  organizationId: string,
  query: CheckPageQuery,
): Promise<CheckSummaryRow[]> {
  const where = ['organization_id = $1'];
  const params: unknown[] = [organizationId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const add = (clause: string, value: unknown) => where.push(clause.replace('?', param(value)));
  if (query.status) add('status = ?', query.status);
  if (query.verdict) add('verdict = ?', query.verdict);
  if (query.tradingPartnerServiceId) add('trading_partner_service_id = ?', query.tradingPartnerServiceId);
  if (query.createdFrom) add('created_at >= ?', query.createdFrom);
  if (query.createdBefore) add('created_at < ?', query.createdBefore);
  for (const term of query.search ?? []) {
    const prefix = param(`${likeLiteral(term.text)}%`);
    const inside = param(`%${likeLiteral(term.text.replaceAll('-', ''))}%`);
    const matches = [
      `upper(request->'subscriber'->>'firstName') LIKE ${prefix}`,
      `upper(request->'subscriber'->>'lastName') LIKE ${prefix}`,
      `replace(upper(request->'subscriber'->>'memberId'), '-', '') LIKE ${inside}`,
    ];
    if (term.dateOfBirth) matches.push(`request->'subscriber'->>'dateOfBirth' = ${param(term.dateOfBirth)}`);
    where.push(`(${matches.join(' OR ')})`);
  }
  if (query.before) add('id < ?', query.before);
  params.push(query.limit);
  const { rows } = await db.query<CheckSummaryRow>(
    `SELECT id, status, verdict, trading_partner_service_id AS "tradingPartnerServiceId",
            request->'subscriber'->>'memberId' AS "memberId",
            request->'subscriber'->>'firstName' AS "firstName",
            request->'subscriber'->>'lastName' AS "lastName",
            request->'subscriber'->>'dateOfBirth' AS "dateOfBirth",
            outcome_code AS "outcomeCode", created_at AS "createdAt", completed_at AS "completedAt"
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
