/**
 * The `checks` table read as a patient's history (issue 17 sections 2 and 3): the latest completed check
 * of one patient or of one question within an organization, each one probe of a partial index
 * (`checks_patient_history_idx`, `checks_reuse_idx` on organization, key, completion time), and the
 * coverage changes a check found. Only checks that asked the payer count (`reused_from IS NULL`): a reused
 * check repeats an older answer and is neither a source of reuse (its window would restart) nor a baseline
 * (it would name a check that never saw the payer). Purged checks have no keys and fall out of both.
 * Statements are typed as described in typed.ts.
 */
import type { Column } from 'drizzle-orm';
import { firstRow, ownedRowLookup, type Queryable } from './db.ts';
import { checks } from './schema.ts';
import { columns, type RowOf, sqlOf, type TypedSql } from './typed.ts';

type CheckRow = typeof checks.$inferSelect;
const HISTORY = columns(checks, ['id', 'result', 'completedAt']);
export type HistoryRow = RowOf<typeof HISTORY>;

/**
 * The newest completed check of the organization whose `keyColumn` is `$2`, that asked the payer, still
 * has its answer, and meets `condition` (`$3` in it is the caller's third parameter): one probe of the
 * partial index on (organization, key, completion time).
 */
const newestAnsweredCheck = (keyColumn: Column, condition: TypedSql) =>
  sqlOf`SELECT ${HISTORY} FROM ${checks}
      WHERE ${checks.organizationId} = $1 AND ${keyColumn} = $2 AND ${checks.status} = 'COMPLETED' AND ${checks.reusedFrom} IS NULL
        AND ${condition} AND ${checks.result} IS NOT NULL AND ${checks.purgedAt} IS NULL
      ORDER BY ${checks.completedAt} DESC LIMIT 1`;

const REUSABLE = newestAnsweredCheck(
  checks.reuseKey,
  sqlOf`${checks.completedAt} >= now() - $3 * interval '1 hour'`,
);
const PREVIOUS = newestAnsweredCheck(
  checks.patientKey,
  // "Before" is the finishing check's own completed_at, set after the patient's lock was taken
  // (src/checks/check-history.ts), so every check it may see finished earlier.
  sqlOf`${checks.completedAt} <= (SELECT own.${checks.completedAt} FROM ${checks} own WHERE own.${checks.id} = $3) AND ${checks.id} <> $3`,
);

/** The newest completed check of the organization with this reuse key that finished within `hours`. */
export const findReusableCheck = (db: Queryable, organizationId: string, reuseKey: string, hours: number) =>
  firstRow<HistoryRow>(db, REUSABLE, [organizationId, reuseKey, hours]);

/**
 * The newest completed check of the patient before `checkId`, read in the transaction that finishes
 * `checkId`, under the patient's lock (src/checks/check-history.ts): "before" is the finishing check's own
 * `completed_at`, set after that lock was taken, so every check it may see finished earlier.
 */
export const findPreviousCompletedCheck = (
  tx: Queryable,
  organizationId: string,
  patientKey: string,
  checkId: string,
) => firstRow<HistoryRow>(tx, PREVIOUS, [organizationId, patientKey, checkId]);

const RECORD_CHANGES = sqlOf`UPDATE ${checks} SET ${checks.comparedWith} = $2, ${checks.coverageChanges} = $3::jsonb WHERE ${checks.id} = $1`;

/** Records on a check the earlier check it was compared with and what changed (a JSON array). */
export async function recordCoverageChanges(
  tx: Queryable,
  checkId: string,
  comparedWith: string,
  changes: NonNullable<CheckRow['coverageChanges']>,
): Promise<void> {
  await tx.query(RECORD_CHANGES, [checkId, comparedWith, JSON.stringify(changes)]);
}

const COVERAGE = columns(checks, ['id', 'completedAt', 'coverageChanges']);
export type CoverageHistoryRow = RowOf<typeof COVERAGE>;
const findComparison = ownedRowLookup(checks, columns(checks, ['comparedWith', 'coverageChanges']));
const LATER = sqlOf`SELECT ${COVERAGE} FROM ${checks}
      WHERE ${checks.comparedWith} = $2 AND ${checks.organizationId} = $1 AND ${checks.coverageChanges} IS NOT NULL
      ORDER BY ${checks.completedAt}`;
const EARLIER = sqlOf`SELECT ${columns(checks, ['id', 'completedAt'])} FROM ${checks} WHERE ${checks.id} = $2 AND ${checks.organizationId} = $1`;

/**
 * What the portal shows on a check: the changes it found against an earlier check (`since`), and those
 * later checks found against it (`later`), all within the organization.
 */
export async function findCoverageHistory(
  db: Queryable,
  organizationId: string,
  checkId: string,
): Promise<{ since?: CoverageHistoryRow; later: CoverageHistoryRow[] }> {
  const own = await findComparison(db, organizationId, checkId);
  if (!own) return { later: [] };
  const { rows: later } = await db.query<CoverageHistoryRow>(LATER, [organizationId, checkId]);
  if (!own.comparedWith || own.coverageChanges == null) return { later };
  const { rows } = await db.query<Pick<CheckRow, 'id' | 'completedAt'>>(EARLIER, [
    organizationId,
    own.comparedWith,
  ]);
  const previous = rows[0];
  if (!previous) return { later };
  // `since`: the earlier check (its id and finish time) with the changes this check found against it.
  return { since: { ...previous, coverageChanges: own.coverageChanges }, later };
}
