/** NOTIFY channels that wake other processes: new checks, due webhook events, changed API keys, monitors due. */
import type { Queryable } from './db.ts';

export const CHECKS_CHANNEL = 'elig_checks';
export const WEBHOOKS_CHANNEL = 'elig_webhooks';
export const KEYS_CHANNEL = 'elig_keys';
/** A monitor was created or resumed: its first run may be due now. */
export const MONITORS_CHANNEL = 'elig_monitors';

/**
 * NOTIFY `channel` through `db`: inside a transaction the wake-up is sent when it commits, so listeners
 * never look before the change is visible, and never at all when it rolls back.
 */
export async function wake(db: Queryable, channel: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, '']);
}
/** The payer directory changed (a reload or an import): every process rebuilds it from the database. */
export const PAYER_DIRECTORY_CHANNEL = 'elig_payer_directory';
