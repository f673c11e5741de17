/**
 * A check against the organization's earlier checks of the same patient (issue 17 sections 2 and 3).
 *
 * Reuse ("no paid re-checks"): a check whose submit allowed it (`reuseWithinHours`, else the organization
 * default) is answered, without a payer call, by the newest COMPLETED check of the organization that asked
 * the same question (same reuse key: src/checks/patient-identity.ts) and finished within the window. The
 * worker does it when it takes the check, before asking for a payer slot, so a reused check neither waits
 * on a busy or broken payer nor counts against it; it then finishes like any check (its own id, webhook,
 * batch count and row). FAILED checks are never reused, and neither are reused ones (the window counts
 * from the payer's answer, not from its last copy).
 *
 * coverage.changed: when a check that asked the payer COMPLETES, it is compared with the latest earlier
 * COMPLETED check of the same patient and payer (patient key) in the transaction that finishes it; the
 * changes are recorded on the check and, when there are any, one `coverage.changed` event is written to the
 * outbox in that same transaction: exactly once, because that transaction commits once (lease guard) and
 * the event is unique per (check, type). A reused check is not compared: its answer is not new.
 * Concurrent finishes of one patient (issue 26): the finishing transaction takes the patient's advisory
 * lock (`lockPatientHistory`) before it marks the check finished and reads the previous one (one statement,
 * src/store/queue/finish-check.ts), so under READ
 * COMMITTED each comparison sees every earlier one committed, and completion times follow the lock order:
 * ten checks finishing at once make a line of nine comparisons, not several naming the same previous check.
 */
import type { EligibilityCheckResponse, RequestCorrection } from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import { type CoverageChange, coverageChangedBody } from '../contract/webhook-events.ts';
import { uuidv7 } from '../ids.ts';
import { lockForTransaction } from '../store/advisory-lock.ts';
import {
  type CoverageHistoryRow,
  findCoverageHistory,
  recordCoverageChanges,
} from '../store/check-history.ts';
import type { Queryable } from '../store/db.ts';
import type { PreviousCheck } from '../store/queue/finish-check.ts';
import { insertOutboxEvent } from '../store/queue/outbox-event.ts';
import { coverageChanges } from './coverage-changes.ts';
import { withEstimates } from './estimates.ts';
import { REQUEST_CORRECTED_WARNING_CODE, requestCorrectedWarning } from './request-repair.ts';
import { verdictOf } from './verdict.ts';

/**
 * The body of a check answered from an earlier one: the earlier result under this check's id, with
 * `meta.reusedFrom`, and this check's own request corrections (the two submits may have been written
 * differently and still ask the same question).
 */
export function reusedBody(
  original: string,
  id: string,
  from: { id: string; finishedAt: Date },
  corrections: readonly RequestCorrection[] | null | undefined,
  /** This check's own charges: the estimates are worked out again for them (none: no estimates). */
  charges?: readonly PricedCharge[] | null,
): string {
  const parsed = JSON.parse(original) as EligibilityCheckResponse;
  const { id: _originalId, status, requestCorrections: _theirs, warnings, meta, ...rest } = parsed;
  const own = (corrections ?? []).map(({ field, code, description }) => ({ field, code, description }));
  const kept = (warnings ?? []).filter((w) => w.code !== REQUEST_CORRECTED_WARNING_CODE);
  if (own.length) kept.push(requestCorrectedWarning(own));
  const body: EligibilityCheckResponse = withEstimates(
    {
      id,
      status,
      ...rest,
      ...(warnings || own.length ? { warnings: kept } : {}),
      meta: { ...meta, reusedFrom: { id: from.id, finishedAt: from.finishedAt.toISOString() } },
      ...(own.length ? { requestCorrections: own } : {}),
    },
    charges,
  );
  // The stored order (outcome.ts): id, status, verdict, then the rest.
  const { id: _id, status: _status, verdict: _verdict, ...others } = body;
  return JSON.stringify({ id, status, verdict: verdictOf(body), ...others });
}

/**
 * Holds, until the end of `tx`, the lock serializing the comparisons of one patient (patient key) of an
 * organization. Taken before the check is marked finished (see finish.ts).
 */
export const lockPatientHistory = (tx: Queryable, organizationId: string, patientKey: string) =>
  lockForTransaction(tx, 'checks.patient-history', `${organizationId}:${patientKey}`);

/**
 * Compares a check that just completed (in the transaction finishing it) with the patient's latest earlier
 * completed check, records what changed and writes the `coverage.changed` event. Returns the number of
 * changes (0: nothing to report, or no earlier check).
 */
export async function compareWithPrevious(
  tx: Queryable,
  check: {
    id: string;
    organizationId: string;
    tradingPartnerServiceId: string;
    /** The finished body as an object. */
    response: EligibilityCheckResponse;
  },
  previous: PreviousCheck | undefined,
): Promise<number> {
  if (!previous) return 0;
  const before = JSON.parse(previous.result) as EligibilityCheckResponse;
  const after = check.response;
  const changes = coverageChanges(before, after);
  if (!changes.length) return 0;
  await recordCoverageChanges(tx, check.id, previous.id, changes);
  await insertOutboxEvent(tx, {
    id: uuidv7(),
    organizationId: check.organizationId,
    kind: 'coverage.changed',
    subject: 'check_id',
    subjectId: check.id,
    body: coverageChangedBody({
      checkId: check.id,
      previousCheckId: previous.id,
      previousFinishedAt: new Date(previous.completedAt).toISOString(),
      tradingPartnerServiceId: check.tradingPartnerServiceId,
      changes,
    }),
  });
  return changes.length;
}

/** Changes found between two checks of a patient, as the portal shows them on either check. */
export interface CoverageComparison {
  /** The other check: the earlier one (on the later check's page) or the later one (on the earlier's). */
  checkId: string;
  finishedAt: string | null;
  changes: CoverageChange[];
}

export interface CoverageHistory {
  /** What changed since the earlier check this one was compared with. */
  since?: CoverageComparison;
  /** What later checks found changed since this one. */
  later: CoverageComparison[];
}

const comparison = (row: CoverageHistoryRow): CoverageComparison => ({
  checkId: row.id,
  finishedAt: row.completedAt ? new Date(row.completedAt).toISOString() : null,
  changes: row.coverageChanges ?? [],
});

/** The coverage changes involving a check of the organization (none for another organization's check). */
export async function coverageHistory(
  db: Queryable,
  organizationId: string,
  checkId: string,
): Promise<CoverageHistory> {
  const { since, later } = await findCoverageHistory(db, organizationId, checkId);
  return { ...(since ? { since: comparison(since) } : {}), later: later.map(comparison) };
}
