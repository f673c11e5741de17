/**
 * The sign-in throttle's table (`login_attempts`): every statement that reads or writes it. The throttle
 * (src/portal/login-throttle.ts) decides which keys and policies apply; this module makes each attempt's
 * count-and-reserve one atomic statement, so that parallel requests cannot slip past the limit.
 */
import type { Queryable } from './db.ts';
import type { loginAttempts } from './schema.ts';

export type LoginAttempt = typeof loginAttempts.$inferSelect;

/**
 * A row untouched for this long counts from zero again, and the retention worker deletes it. Longer than
 * any wait a policy may impose, so forgetting never lifts a block early.
 */
export const ATTEMPTS_FORGOTTEN_AFTER_MS = 3600_000;

/** How many attempts run back to back, then how long to wait before each further one. */
export interface AttemptPolicy {
  /** Attempts allowed without waiting; reserving the last of them starts the first wait. */
  freeAttempts: number;
  /** The first wait; each further attempt doubles it. */
  firstWaitMs: number;
  /** The longest wait; must stay below ATTEMPTS_FORGOTTEN_AFTER_MS. */
  maxWaitMs: number;
}

export type Reservation = { allowed: true; attempt: number } | { allowed: false; retryAt: Date };

/**
 * Counts an attempt and reserves it, or refuses it while the key waits out its backoff. One statement:
 * `INSERT … ON CONFLICT DO UPDATE` takes the row lock, and the `WHERE` sees the row as the last committed
 * attempt left it (PostgreSQL re-checks it after waiting for that lock), so N parallel attempts on one key
 * reserve at most `freeAttempts` before the first wait applies. The wait is written while reserving, i.e.
 * assuming the attempt fails; a success clears the row (`clearLoginAttempts`). A refused attempt changes
 * nothing, so a flood of refused attempts cannot stretch a wait beyond the policy's.
 */
export async function reserveLoginAttempt(
  db: Queryable,
  key: string,
  policy: AttemptPolicy,
  now: Date,
): Promise<Reservation> {
  const forgetBefore = new Date(now.getTime() - ATTEMPTS_FORGOTTEN_AFTER_MS);
  // A refusal reads the wait in a second statement; if the row changed in between (a success cleared it,
  // the wait just ended), try the reservation again.
  for (let round = 0; round < 3; round++) {
    const { rows } = await db.query<Pick<LoginAttempt, 'attempts'>>(
      `INSERT INTO login_attempts AS a (key, attempts, last_attempt_at, blocked_until)
       VALUES ($1, 1, $2::timestamptz,
               CASE WHEN $3::int <= 1 THEN $2::timestamptz + LEAST($4::float8, $5::float8) * interval '1 millisecond' END)
       ON CONFLICT (key) DO UPDATE
          SET (attempts, last_attempt_at, blocked_until) = (
                SELECT n, $2::timestamptz,
                       CASE WHEN n >= $3::int
                            THEN $2::timestamptz
                                 + LEAST($5::float8, $4::float8 * 2.0::float8 ^ LEAST(n - $3::int, 30))
                                   * interval '1 millisecond'
                       END
                  FROM (SELECT CASE WHEN a.last_attempt_at > $6::timestamptz THEN a.attempts + 1 ELSE 1 END AS n) AS next)
        WHERE a.blocked_until IS NULL OR a.blocked_until <= $2::timestamptz
       RETURNING attempts`,
      [key, now, policy.freeAttempts, policy.firstWaitMs, policy.maxWaitMs, forgetBefore],
    );
    if (rows[0]) return { allowed: true, attempt: rows[0].attempts };
    const blocked = await db.query<Pick<LoginAttempt, 'blockedUntil'>>(
      'SELECT blocked_until AS "blockedUntil" FROM login_attempts WHERE key = $1',
      [key],
    );
    const retryAt = blocked.rows[0]?.blockedUntil;
    if (retryAt && retryAt.getTime() > now.getTime()) return { allowed: false, retryAt };
  }
  // Three rounds of a row changing under us: only a storm of parallel attempts does that; refuse briefly.
  return { allowed: false, retryAt: new Date(now.getTime() + 1000) };
}

/** A successful sign-in: the account starts again from zero. */
export async function clearLoginAttempts(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_attempts WHERE key = $1', [key]);
}

const PRUNE_BATCH = 1000;

/**
 * Deletes forgotten rows (see ATTEMPTS_FORGOTTEN_AFTER_MS) in batches, so a flood of made-up emails leaves
 * no lasting trace and no long lock. The outer condition is checked again on the locked row: an attempt
 * that touched it meanwhile keeps it.
 */
export async function pruneLoginAttempts(db: Queryable, now: Date): Promise<number> {
  const before = new Date(now.getTime() - ATTEMPTS_FORGOTTEN_AFTER_MS);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM login_attempts
        WHERE key IN (SELECT key FROM login_attempts WHERE last_attempt_at < $1::timestamptz LIMIT ${PRUNE_BATCH})
          AND last_attempt_at < $1::timestamptz AND (blocked_until IS NULL OR blocked_until < $1::timestamptz)`,
      [before],
    );
    deleted += rowCount;
    if (rowCount < PRUNE_BATCH) return deleted;
  }
}
