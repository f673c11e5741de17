/**
 * The `checks` table outside the queue: reading checks for the API, the portal and metrics. The queue's
 * own statements (claim, retry, release, finish) are in src/store/queue/; statements are typed as described
 * in typed.ts.
 */
import { idempotencyKeyStatements, organizationPageLookup, ownedRowLookup, type Queryable } from './db.ts';
import { checks, organizations } from './schema.ts';
import { columns, type RowOf, sqlOf, type TypedSql } from './typed.ts';

export type CheckRow = typeof checks.$inferSelect;

type NewCheck = Pick<CheckRow, 'id' | 'organizationId' | 'tradingPartnerServiceId' | 'request'> &
  Partial<Pick<CheckRow, 'requestCorrections' | 'reuseWithinHours' | 'connection' | 'charges'>>;

/**
 * The reuse window stored on a new check: the submit's own (0: never), else the organization's default
 * as it is now, read in the insert itself (no extra round trip). `$2` is the organization id.
 */
const REUSE_WINDOW = (param: TypedSql) =>
  sqlOf`COALESCE(${param}::int, (SELECT o.${organizations.reuseWithinHours} FROM ${organizations} o WHERE o.${organizations.id} = $2))`;

const INSERT = sqlOf`INSERT INTO ${checks} (${checks.id}, ${checks.organizationId}, ${checks.status}, ${checks.tradingPartnerServiceId}, ${checks.request}, ${checks.requestCorrections},
                         ${checks.reuseWithinHours}, ${checks.connection}, ${checks.charges})
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5::jsonb, ${REUSE_WINDOW(sqlOf`$6`)}, $7, $8::jsonb)`;

const INSERT_UNLESS_KEY_TAKEN = sqlOf`INSERT INTO ${checks} (${checks.id}, ${checks.organizationId}, ${checks.status}, ${checks.tradingPartnerServiceId}, ${checks.request}, ${checks.idempotencyKey}, ${checks.requestHash},
                         ${checks.requestCorrections}, ${checks.reuseWithinHours}, ${checks.connection}, ${checks.charges})
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, $5, $6, $7::jsonb, ${REUSE_WINDOW(sqlOf`$8`)}, $9, $10::jsonb)
     ON CONFLICT (${checks.organizationId}, ${checks.idempotencyKey}) DO NOTHING
     RETURNING ${checks.id}`;

/** A JSON array as a jsonb parameter: the drivers would send a JS array as a PostgreSQL array. */
const corrections = (check: NewCheck) =>
  check.requestCorrections == null ? null : JSON.stringify(check.requestCorrections);
const charges = (check: NewCheck) => (check.charges == null ? null : JSON.stringify(check.charges));

/** A new check, IN_PROGRESS and due now. */
export async function insertCheck(db: Queryable, check: NewCheck): Promise<void> {
  await db.query(INSERT, [
    check.id,
    check.organizationId,
    check.tradingPartnerServiceId,
    check.request,
    corrections(check),
    check.reuseWithinHours ?? null,
    check.connection ?? '',
    charges(check),
  ]);
}

/**
 * A new check under an idempotency key; false (and nothing written) when the organization already has a
 * check with that key. The unique index decides races between parallel submissions.
 */
export async function insertCheckUnlessKeyTaken(
  db: Queryable,
  check: NewCheck & { idempotencyKey: string; requestHash: string },
): Promise<boolean> {
  const { rows } = await db.query<Pick<CheckRow, 'id'>>(INSERT_UNLESS_KEY_TAKEN, [
    check.id,
    check.organizationId,
    check.tradingPartnerServiceId,
    check.request,
    check.idempotencyKey,
    check.requestHash,
    corrections(check),
    check.reuseWithinHours ?? null,
    check.connection ?? '',
    charges(check),
  ]);
  return rows.length > 0;
}

const idempotencyKeys = idempotencyKeyStatements(checks, columns(checks, ['id', 'requestHash']));
/** The check holding an idempotency key, and whether it is older than `windowMs`. */
export const findCheckByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired idempotency key for reuse (unless another request freed it already). */
export const releaseIdempotencyKey = idempotencyKeys.release;

/** A check's status and stored result body, scoped to its organization (another's reads as absent). */
export const findCheckResult = ownedRowLookup(checks, columns(checks, ['status', 'result']));

const DETAIL = columns(checks, ['id', 'status', 'request', 'result', 'attempts', 'createdAt', 'completedAt']);
export type CheckDetailRow = RowOf<typeof DETAIL>;

/** One check in full, scoped to its organization. */
export const findCheck = ownedRowLookup(checks, DETAIL);

/** A page of an organization's checks in full, newest first (the FHIR face's search without a request). */
export const selectCheckDetailPage = organizationPageLookup(checks, DETAIL);

const SUMMARY_HEAD = columns(checks, ['id', 'status', 'verdict', 'tradingPartnerServiceId']);
const SUMMARY_TAIL = columns(checks, ['outcomeCode', 'createdAt', 'completedAt']);
export type CheckSummaryRow = RowOf<typeof SUMMARY_HEAD> &
  RowOf<typeof SUMMARY_TAIL> & {
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

/** The subscriber's fields in the stored request, as text. */
const MEMBER_ID = sqlOf`${checks.request}->'subscriber'->>'memberId'`;
const FIRST_NAME = sqlOf`${checks.request}->'subscriber'->>'firstName'`;
const LAST_NAME = sqlOf`${checks.request}->'subscriber'->>'lastName'`;
const DATE_OF_BIRTH = sqlOf`${checks.request}->'subscriber'->>'dateOfBirth'`;

const SELECT_PAGE = sqlOf`SELECT ${SUMMARY_HEAD},
            ${MEMBER_ID} AS "memberId",
            ${FIRST_NAME} AS "firstName",
            ${LAST_NAME} AS "lastName",
            ${DATE_OF_BIRTH} AS "dateOfBirth",
            ${SUMMARY_TAIL}
       FROM ${checks} WHERE `;
const LISTED_INQUIRY = sqlOf`(${checks.discoveryId} IS NULL OR ${checks.status} = 'COMPLETED')`;
const NEWEST_FIRST = sqlOf` ORDER BY ${checks.id} DESC LIMIT `;

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
  // A discovery's inquiries that found nothing (or are still asking) are its own business: they are shown
  // on the discovery, not as failures in the organization's list (docs/discovery.md).
  const where: string[] = [sqlOf`${checks.organizationId} = $1`, LISTED_INQUIRY];
  const params: unknown[] = [organizationId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const add = (column: TypedSql, op: '=' | '>=' | '<', value: unknown) =>
    where.push(`${column} ${op} ${param(value)}`);
  if (query.status) add(sqlOf`${checks.status}`, '=', query.status);
  if (query.verdict) add(sqlOf`${checks.verdict}`, '=', query.verdict);
  if (query.tradingPartnerServiceId)
    add(sqlOf`${checks.tradingPartnerServiceId}`, '=', query.tradingPartnerServiceId);
  if (query.createdFrom) add(sqlOf`${checks.createdAt}`, '>=', query.createdFrom);
  if (query.createdBefore) add(sqlOf`${checks.createdAt}`, '<', query.createdBefore);
  for (const term of query.search ?? []) {
    const prefix = param(`${likeLiteral(term.text)}%`);
    const inside = param(`%${likeLiteral(term.text.replaceAll('-', ''))}%`);
    const matches = [
      `upper(${FIRST_NAME}) LIKE ${prefix}`,
      `upper(${LAST_NAME}) LIKE ${prefix}`,
      `replace(upper(${MEMBER_ID}), '-', '') LIKE ${inside}`,
    ];
    if (term.dateOfBirth) matches.push(`${DATE_OF_BIRTH} = ${param(term.dateOfBirth)}`);
    where.push(`(${matches.join(' OR ')})`);
  }
  if (query.before) add(sqlOf`${checks.id}`, '<', query.before);
  params.push(query.limit);
  const { rows } = await db.query<CheckSummaryRow>(
    `${SELECT_PAGE}${where.join(' AND ')}${NEWEST_FIRST}$${params.length}`,
    params,
  );
  return rows;
}

const COUNT_IN_PROGRESS = sqlOf`SELECT count(*)::int AS n FROM ${checks} WHERE ${checks.status} = 'IN_PROGRESS'`;

/** How many checks are IN_PROGRESS (the queue depth). */
export async function countChecksInProgress(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(COUNT_IN_PROGRESS);
  return rows[0]?.n ?? 0;
}

const OLDEST_IN_PROGRESS = sqlOf`SELECT extract(epoch FROM now() - min(${checks.createdAt}))::float8 AS s FROM ${checks} WHERE ${checks.status} = 'IN_PROGRESS'`;

/** Age in seconds of the oldest IN_PROGRESS check; null when there is none. */
export async function oldestCheckInProgressAgeSeconds(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ s: number | null }>(OLDEST_IN_PROGRESS);
  return rows[0]?.s ?? null;
}
