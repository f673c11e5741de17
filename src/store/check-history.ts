/**
 * The `checks` table read as a patient's history (issue 17 sections 2 and 3): the latest completed check
 * of one patient or of one question within an organization, each one probe of a partial index
 * (`checks_patient_history_idx`, `checks_reuse_idx` on organization, key, completion time), and the
 * coverage changes a check found. Only checks that asked the payer count (`reused_from IS NULL`): a reused
 * check repeats an older answer and is neither a source of reuse (its window would restart) nor a baseline
 * (it would name a check that never saw the payer). Purged checks have no keys and fall out of both.
 * Row typing as described at the top of organizations.ts.
 */
import { findOwnedRow, firstRow, type Queryable } from './db.ts';
import type { checks } from './schema.ts';

type CheckRow = typeof checks.$inferSelect;
export type HistoryRow = Pick<CheckRow, 'id' | 'result' | 'completedAt'>;

/**
 * The newest completed check of the organization whose `keyColumn` is `key`, that asked the payer, still
 * has its answer, and meets `condition` (`$3` in it is `conditionParam`): one probe of the partial index
 * on (organization, key, completion time).
 */
function newestAnsweredCheck(
  db: Queryable,
  keyColumn: 'reuse_key' | 'patient_key',
  organizationId: string,
  key: string,
  condition: string,
  conditionParam: unknown,
): Promise<HistoryRow | undefined> {
  return firstRow<HistoryRow>(
    db,
    `SELECT id, result, completed_at AS "completedAt" FROM checks
      WHERE organization_id = $1 AND ${keyColumn} = $2 AND status = 'COMPLETED' AND reused_from IS NULL
        AND ${condition} AND result IS NOT NULL AND purged_at IS NULL
      ORDER BY completed_at DESC LIMIT 1`,
    [organizationId, key, conditionParam],
  );
}

/** The newest completed check of the organization with this reuse key that finished within `hours`. */
export const findReusableCheck = (db: Queryable, organizationId: string, reuseKey: string, hours: number) =>
  newestAnsweredCheck(
    db,
    'reuse_key',
    organizationId,
    reuseKey,
    "completed_at >= now() - $3 * interval '1 hour'",
    hours,
  );

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
) =>
  newestAnsweredCheck(
    tx,
    'patient_key',
    organizationId,
    patientKey,
    'completed_at <= (SELECT own.completed_at FROM checks own WHERE own.id = $3) AND id <> $3',
    checkId,
  );

/** Records on a check the earlier check it was compared with and what changed (a JSON array). */
export async function recordCoverageChanges(
  tx: Queryable,
  checkId: string,
  comparedWith: string,
  changes: unknown[],
): Promise<void> {
  await tx.query('UPDATE checks SET compared_with = $2, coverage_changes = $3::jsonb WHERE id = $1', [
    checkId,
    comparedWith,
    JSON.stringify(changes),
  ]);
}

export type CoverageHistoryRow = Pick<CheckRow, 'id' | 'completedAt' | 'coverageChanges'>;

/**
 * What the portal shows on a check: the changes it found against an earlier check (`since`), and those
 * later checks found against it (`later`), all within the organization.
 */
export async function findCoverageHistory(
  db: Queryable,
  organizationId: string,
  checkId: string,
): Promise<{ since?: CoverageHistoryRow; later: CoverageHistoryRow[] }> {
  const own = await findOwnedRow<Pick<CheckRow, 'comparedWith' | 'coverageChanges'>>(
    db,
    'checks',
    'compared_with AS "comparedWith", coverage_changes AS "coverageChanges"',
    organizationId,
    checkId,
  );
  if (!own) return { later: [] };
  const { rows: later } = await db.query<CoverageHistoryRow>(
    `SELECT id, completed_at AS "completedAt", coverage_changes AS "coverageChanges" FROM checks
      WHERE compared_with = $2 AND organization_id = $1 AND coverage_changes IS NOT NULL
      ORDER BY completed_at`,
    [organizationId, checkId],
  );
  if (!own.comparedWith || own.coverageChanges == null) return { later };
  const { rows } = await db.query<Pick<CheckRow, 'id' | 'completedAt'>>(
    'SELECT id, completed_at AS "completedAt" FROM checks WHERE id = $2 AND organization_id = $1',
    [organizationId, own.comparedWith],
  );
  const previous = rows[0];
  if (!previous) return { later };
  // `since`: the earlier check (its id and finish time) with the changes this check found against it.
  return { since: { ...previous, coverageChanges: own.coverageChanges }, later };
}
