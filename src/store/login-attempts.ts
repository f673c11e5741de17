/**
 * The sign-in throttle's table (`login_attempts`): every statement that reads or writes it. The throttle
 * (src/portal/login-throttle.ts) decides which keys and policies apply; this module makes each attempt's
 * count-and-reserve one atomic statement, so that parallel requests cannot slip past the limit.
 */
import type { Queryable } from './db.ts';
import { loginAttempts } from './schema.ts';
import { columns, sqlOf } from './typed.ts';

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

const a = loginAttempts;
const RESERVE = sqlOf`INSERT INTO ${a} AS a (${a.key}, ${a.attempts}, ${a.lastAttemptAt}, ${a.blockedUntil})
       VALUES ($1, 1, $2::timestamptz,
               CASE WHEN $3::int <= 1 THEN $2::timestamptz + LEAST($4::float8, $5::float8) * interval '1 millisecond' END)
       ON CONFLICT (${a.key}) DO UPDATE
          SET (${a.attempts}, ${a.lastAttemptAt}, ${a.blockedUntil}) = (
                SELECT n, $2::timestamptz,
                       CASE WHEN n >= $3::int
                            THEN $2::timestamptz
                                 + LEAST($5::float8, $4::float8 * 2.0::float8 ^ LEAST(n - $3::int, 30))
                                   * interval '1 millisecond'
                       END
                  FROM (SELECT CASE WHEN a.${a.lastAttemptAt} > $6::timestamptz THEN a.${a.attempts} + 1 ELSE 1 END AS n) AS next)
        WHERE a.${a.blockedUntil} IS NULL OR a.${a.blockedUntil} <= $2::timestamptz
       RETURNING ${a.attempts}`;
const BLOCKED_UNTIL = sqlOf`SELECT ${columns(a, ['blockedUntil'])} FROM ${a} WHERE ${a.key} = $1`;

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
    const { rows } = await db.query<Pick<LoginAttempt, 'attempts'>>(RESERVE, [
      key,
      now,
      policy.freeAttempts,
      policy.firstWaitMs,
      policy.maxWaitMs,
      forgetBefore,
    ]);
    if (rows[0]) return { allowed: true, attempt: rows[0].attempts };
    const blocked = await db.query<Pick<LoginAttempt, 'blockedUntil'>>(BLOCKED_UNTIL, [key]);
    const retryAt = blocked.rows[0]?.blockedUntil;
    if (retryAt && retryAt.getTime() > now.getTime()) return { allowed: false, retryAt };
  }
  // Three rounds of a row changing under us: only a storm of parallel attempts does that; refuse briefly.
  return { allowed: false, retryAt: new Date(now.getTime() + 1000) };
}

const CLEAR = sqlOf`DELETE FROM ${a} WHERE ${a.key} = $1`;

/** A successful sign-in: the account starts again from zero. */
export async function clearLoginAttempts(db: Queryable, key: string): Promise<void> {
  await db.query(CLEAR, [key]);
}

const PRUNE_BATCH = 1000;
const PRUNE = sqlOf`DELETE FROM ${a}
        WHERE ${a.key} IN (SELECT ${a.key} FROM ${a} WHERE ${a.lastAttemptAt} < $1::timestamptz LIMIT ${PRUNE_BATCH})
          AND ${a.lastAttemptAt} < $1::timestamptz AND (${a.blockedUntil} IS NULL OR ${a.blockedUntil} < $1::timestamptz)`;

/**
 * Deletes forgotten rows (see ATTEMPTS_FORGOTTEN_AFTER_MS) in batches, so a flood of made-up emails leaves
 * no lasting trace and no long lock. The outer condition is checked again on the locked row: an attempt
 * that touched it meanwhile keeps it.
 */
export async function pruneLoginAttempts(db: Queryable, now: Date): Promise<number> {
  const before = new Date(now.getTime() - ATTEMPTS_FORGOTTEN_AFTER_MS);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(PRUNE, [before]);
    deleted += rowCount;
    if (rowCount < PRUNE_BATCH) return deleted;
  }
}
