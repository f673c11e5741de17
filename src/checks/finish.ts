/**
 * Finishing a check: its final status and its webhook event are written in one transaction (transactional
 * outbox), guarded by the lease so that exactly one completion is ever recorded for a check. A batch
 * check is counted in its batch in the same transaction, and the one that finishes the batch writes the
 * `batch.completed` event there too (see src/store/queue/finish-batch-item.ts for why exactly once).
 */

import { batchSummary } from '../contract/batch.ts';
import type { EligibilityCheckResponse } from '../contract/check-response.ts';
import { discoveryCompletedBody, discoveryOf } from '../contract/discovery.ts';
import { batchCompletedBody } from '../contract/webhook-events.ts';
import { uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL, wake } from '../store/channels.ts';
import type { Db, Queryable } from '../store/db.ts';
import { selectDiscoveryFound } from '../store/discoveries.ts';
import { countBatchItemFinished, insertBatchCompletedEvent } from '../store/queue/finish-batch-item.ts';
import { type CheckCompletion, finishClaimedCheck } from '../store/queue/finish-check.ts';
import {
  countDiscoveryItemFinished,
  insertDiscoveryCompletedEvent,
} from '../store/queue/finish-discovery-item.ts';
import { compareWithPrevious, lockPatientHistory } from './check-history.ts';
import { verdictOf } from './verdict.ts';

/** A check's completion as the worker decides it; the event id is chosen here. */
export type FinishInput = Omit<CheckCompletion, 'eventId'> & {
  /** The batch the check belongs to (null or absent: a single submit). */
  batchId?: string | null;
  /** The discovery the check is an inquiry of (null or absent: an ordinary check). */
  discoveryId?: string | null;
  /** Its payer (named in a `coverage.changed` event). */
  tradingPartnerServiceId?: string;
  /** The object `body` was serialized from, when the caller has it: read instead of parsing the body. */
  response?: EligibilityCheckResponse;
};

/** What finishing a check recorded: false when this worker no longer held it. */
export type FinishResult = false | { coverageChanges: number };

/**
 * Returns false when this worker no longer holds the check (another worker finished or took it over). A
 * COMPLETED check that asked the payer is compared with the patient's previous one in the same
 * transaction (src/checks/check-history.ts), so its `coverage.changed` event exists exactly when it does;
 * that transaction first takes the patient's lock, so checks of one patient finishing at once compare in a
 * line, each with the one before it, never several with the same one.
 */
export async function finishCheck(db: Db, input: FinishInput): Promise<FinishResult> {
  const { batchId, discoveryId, tradingPartnerServiceId, response, ...completion } = input;
  const patientKey = input.status === 'COMPLETED' && !input.reusedFrom ? input.patientKey : undefined;
  // A discovery's inquiry is reported by its discovery's one event, not one event per payer asked.
  const done = { ...completion, eventId: uuidv7(), event: !discoveryId };
  // The common case, a single check with no patient history to compare: one statement, no transaction.
  if (!patientKey && !batchId && !discoveryId) {
    const finished = await finishClaimedCheck(db, done, { notify: WEBHOOKS_CHANNEL });
    return finished && { coverageChanges: 0 };
  }
  return db.transaction(async (tx): Promise<FinishResult> => {
    // One comparison at a time per patient, taken before the check is marked finished: its completion
    // time is then after the previous one's commit, and the previous one is visible to the read.
    if (patientKey) await lockPatientHistory(tx, input.organizationId, patientKey);
    const finished = await finishClaimedCheck(tx, done, {
      notify: WEBHOOKS_CHANNEL,
      ...(patientKey ? { previousOf: patientKey } : {}),
    });
    if (!finished) return false;
    const compared =
      patientKey && tradingPartnerServiceId
        ? await compareWithPrevious(
            tx,
            {
              id: input.id,
              organizationId: input.organizationId,
              tradingPartnerServiceId,
              response: response ?? (JSON.parse(input.body) as EligibilityCheckResponse),
            },
            finished.previous,
          )
        : 0;
    let events = compared ? 1 : 0;
    if (discoveryId)
      events += await countDiscoveryInquiry(tx, input.organizationId, discoveryId, input.status);
    if (batchId) events += await countBatchItem(tx, input.organizationId, batchId, input);
    // The completed event's wake-up went with the finishing statement; these others' goes on commit.
    if (events) await wake(tx, WEBHOOKS_CHANNEL);
    return { coverageChanges: compared };
  });
}

/** Counts a batch check finished; writes `batch.completed` when it was the last. Returns events written. */
async function countBatchItem(
  tx: Queryable,
  organizationId: string,
  batchId: string,
  input: FinishInput,
): Promise<number> {
  const closed = await countBatchItemFinished(tx, {
    batchId,
    status: input.status,
    verdict: verdictStatus(input.response ?? (JSON.parse(input.body) as EligibilityCheckResponse)),
  });
  if (!closed) return 0;
  const body = batchCompletedBody(batchSummary(closed));
  await insertBatchCompletedEvent(tx, { id: uuidv7(), organizationId, batchId, body });
  return 1;
}

/** Counts a discovery's finished inquiry; the last one completes the discovery and writes its event. */
async function countDiscoveryInquiry(
  tx: Queryable,
  organizationId: string,
  discoveryId: string,
  status: 'COMPLETED' | 'FAILED',
): Promise<number> {
  const closed = await countDiscoveryItemFinished(tx, { discoveryId, status });
  if (!closed) return 0;
  const body = discoveryCompletedBody(discoveryOf(closed, await selectDiscoveryFound(tx, discoveryId)));
  await insertDiscoveryCompletedEvent(tx, { id: uuidv7(), organizationId, discoveryId, body });
  return 1;
}

/** The verdict's status of a finished body (the body carries it; an older shape is judged on read). */
function verdictStatus(parsed: EligibilityCheckResponse): string | undefined {
  return (parsed.verdict ?? verdictOf(parsed))?.status;
}
