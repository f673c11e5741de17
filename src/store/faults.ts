/**
 * Which database failures mean "the database is unavailable, retry shortly" (the API answers 503 with
 * Retry-After) rather than a bug (500). Both stores report the same way: node-postgres errors carry a
 * SQLSTATE or a socket errno; PGlite errors carry a SQLSTATE and a severity.
 */
import type { Logger } from 'pino';

/**
 * - `unreachable`: refused, reset or dropped connections; the server shutting down or starting up.
 * - `timeout`: no answer within the request budget (a stalled connection or server), or a statement
 *   cancelled by `statement_timeout`.
 * - `disk-full`, `resources`: SQLSTATE class 53 (insufficient resources: 53100 disk full, memory,
 *   connection slots).
 * - `read-only`: a read-only server or transaction (25006), or a data directory the store may not write
 *   (EROFS/EACCES from the filesystem).
 * - `storage`: any other failure of the store's own files (I/O errors, an embedded database that stopped).
 */
export type UnavailableReason =
  | 'unreachable'
  | 'timeout'
  | 'disk-full'
  | 'resources'
  | 'read-only'
  | 'storage';

export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  constructor(readonly reason: UnavailableReason) {
    super(`database unavailable (${reason})`);
  }
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
]);
const TIMEOUT_MESSAGE =
  /Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout/i;
const DROPPED_MESSAGE =
  /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable/i;
/**
 * PostgreSQL reports EROFS/EACCES/EPERM on its own files as 42501 "could not write to file ...: <strerror>",
 * the same SQLSTATE as a missing privilege ("permission denied for table ..."), which is not an outage.
 */
const FILE_ACCESS_MESSAGE = /: (Read-only file system|Permission denied|Operation not permitted)$/;

/** Returns a DatabaseUnavailableError for failures that mean "unavailable", else the error unchanged. */
export function translate(err: unknown): unknown {
  if (err instanceof DatabaseUnavailableError) return err;
  const reason = classify(err);
  return reason ? new DatabaseUnavailableError(reason) : err;
}

export function classify(err: unknown): UnavailableReason | undefined {
  const {
    code = '',
    message = '',
    severity = '',
  } = (err ?? {}) as {
    code?: string;
    message?: string;
    severity?: string;
  };
  if (code === 'ETIMEDOUT' || code === '57014' || TIMEOUT_MESSAGE.test(message)) return 'timeout';
  if (UNREACHABLE_CODES.has(code) || code.startsWith('08') || DROPPED_MESSAGE.test(message)) {
    return 'unreachable';
  }
  if (code === '53100') return 'disk-full';
  if (code.startsWith('53')) return 'resources';
  if (code === '25006' || code === 'EROFS' || code === 'EACCES') return 'read-only';
  if (code === '42501' && FILE_ACCESS_MESSAGE.test(message)) return 'read-only';
  if (code.startsWith('58')) return 'storage'; // system_error class: I/O errors on the server's files
  // A server reporting PANIC restarts; an embedded database that does has stopped (see pglite.ts).
  if (severity === 'PANIC') return 'storage';
  return undefined;
}

/**
 * Remembers the last disk-full or out-of-resources failure for a while, so that readiness reports writes
 * that failed even when its own small write got through (it needs no new space).
 */
export class FaultLatch {
  private last: { error: DatabaseUnavailableError; at: number } | undefined;

  constructor(private readonly holdMs = 5000) {}

  note(failure: unknown): void {
    if (
      failure instanceof DatabaseUnavailableError &&
      (failure.reason === 'disk-full' || failure.reason === 'resources')
    ) {
      this.last = { error: failure, at: Date.now() };
    }
  }

  current(now = Date.now()): DatabaseUnavailableError | undefined {
    return this.last && now - this.last.at < this.holdMs ? this.last.error : undefined;
  }
}

/**
 * For loops that retry on their own (workers, the dispatcher, retention): an unavailable database is
 * logged at most once per interval, with how many failures were not logged, and nothing else (no query
 * text, no parameters). Returns false for other errors, which the caller logs as before.
 */
export function createFaultReporter(
  log: Pick<Logger, 'warn'>,
  intervalMs = 30_000,
  clock: () => number = Date.now,
): (err: unknown, what: string) => boolean {
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err, what) => {
    if (!(err instanceof DatabaseUnavailableError)) return false;
    const now = clock();
    if (now - lastAt < intervalMs) {
      suppressed++;
      return true;
    }
    log.warn({ reason: err.reason, suppressed }, `${what}: database unavailable; will retry`);
    lastAt = now;
    suppressed = 0;
    return true;
  };
}
