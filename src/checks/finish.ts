/**
 * Finishing a check: its final status and its webhook event are written in one transaction (transactional
 * outbox), guarded by the lease so that exactly one completion is ever recorded for a check.
 */
import { uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';

export interface FinishInput {
  id: string;
  organizationId: string;
  workerId: string;
  status: 'COMPLETED' | 'FAILED';
  body: string;
  /** Codes only, no PHI, e.g. `COMPLETED`, `AAA:72`, `SH01`. */
  outcomeCode: string;
}

/** Returns false when this worker no longer holds the check (another worker finished or took it over). */
export async function finishCheck(db: Db, input: FinishInput): Promise<boolean> {
  const finished = await db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE checks SET status = $3, result = $4, outcome_code = $5, completed_at = now(),
              locked_until = NULL, locked_by = NULL, last_error = NULL
        WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
      [input.id, input.workerId, input.status, input.body, input.outcomeCode],
    );
    if (rowCount !== 1) return false;
    // No URL configured: no event (the spec says clients poll).
    await tx.query(
      `INSERT INTO webhook_events (id, organization_id, check_id, body, url)
       SELECT $1, o.id, $3, $4, o.webhook_url FROM organizations o WHERE o.id = $2 AND o.webhook_url IS NOT NULL
       ON CONFLICT (check_id) DO NOTHING`,
      [uuidv7(), input.organizationId, input.id, input.body],
    );
    return true;
  });
  if (finished) await db.notify(WEBHOOKS_CHANNEL).catch(() => {});
  return finished;
}
