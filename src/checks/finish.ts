/**
 * Finishing a check: its final status and its webhook event are written in one transaction (transactional
 * outbox), guarded by the lease so that exactly one completion is ever recorded for a check.
 */
import { uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { type CheckCompletion, finishClaimedCheck } from '../store/queue/finish-check.ts';

/** A check's completion as the worker decides it; the event id is chosen here. */
export type FinishInput = Omit<CheckCompletion, 'eventId'>;

/** Returns false when this worker no longer holds the check (another worker finished or took it over). */
export async function finishCheck(db: Db, input: FinishInput): Promise<boolean> {
  const finished = await db.transaction((tx) => finishClaimedCheck(tx, { ...input, eventId: uuidv7() }));
  if (finished) await db.notify(WEBHOOKS_CHANNEL).catch(() => {});
  return finished;
}
