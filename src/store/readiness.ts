/**
 * Is the store ready to take requests, that is, to write? `SELECT 1` is not enough: a read-only server
 * (after a failover), a full disk or a failing WAL write all still answer reads. So the probe commits one
 * UPSERT of the heartbeat row, within the request budget, and then asks the store for signs that writes
 * fail anyway: a disk-full error seen on a real write (an UPSERT of one row rewrites a page it already
 * has, so a full disk may let it through) and, on PGlite, a nearly full data disk.
 *
 * The answer is kept for a second: load balancers may probe often, and every probe writes.
 */
import type { Db } from './db.ts';
import { DatabaseUnavailableError, type UnavailableReason } from './faults.ts';

export type Readiness = { ready: true } | { ready: false; reason: UnavailableReason | 'failed' };

const UPSERT_HEARTBEAT = `INSERT INTO heartbeat (id, probed_at) VALUES (1, now())
  ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`;

export function createReadinessProbe(db: Db, budgetMs: number, cacheMs = 1000): () => Promise<Readiness> {
  let cached: { at: number; answer: Promise<Readiness> } | undefined;
  const probe = async (): Promise<Readiness> => {
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseUnavailableError('timeout')), budgetMs);
    });
    try {
      await Promise.race([db.query(UPSERT_HEARTBEAT), outOfTime]);
      const fault = await Promise.race([db.storageFault(), outOfTime]);
      return fault ? { ready: false, reason: fault.reason } : { ready: true };
    } catch (err) {
      return { ready: false, reason: err instanceof DatabaseUnavailableError ? err.reason : 'failed' };
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at >= cacheMs) cached = { at: now, answer: probe() };
    return cached.answer;
  };
}
