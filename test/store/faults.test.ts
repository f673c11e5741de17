/** Which database failures are outages (503, retry) and which are bugs (500); logging them in loops. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  classify,
  createFaultReporter,
  DatabaseUnavailableError,
  FaultLatch,
  translate,
} from '../../src/store/faults.ts';

const CASES: [string, object | null, string | undefined][] = [
  ['connection refused', { code: 'ECONNREFUSED' }, 'unreachable'],
  ['connection reset', { code: 'ECONNRESET' }, 'unreachable'],
  ['backend gone', { message: 'Connection terminated unexpectedly' }, 'unreachable'],
  ['pg_terminate_backend', { code: '57P01', severity: 'FATAL' }, 'unreachable'],
  ['server starting up', { code: '57P03' }, 'unreachable'],
  ['connection failure', { code: '08006' }, 'unreachable'],
  ['stalled statement (node-postgres query_timeout)', { message: 'Query read timeout' }, 'timeout'],
  ['pool wait', { message: 'timeout exceeded when trying to connect' }, 'timeout'],
  ['stalled connect', { message: 'Connection terminated due to connection timeout' }, 'timeout'],
  [
    'statement_timeout',
    { code: '57014', message: 'canceling statement due to statement timeout' },
    'timeout',
  ],
  ['socket timeout', { code: 'ETIMEDOUT' }, 'timeout'],
  [
    'disk full',
    { code: '53100', message: 'could not extend file "base/5/16385": No space left on device' },
    'disk-full',
  ],
  [
    'WAL segment on a full disk',
    {
      code: '53100',
      severity: 'PANIC',
      message: 'could not write to file "pg_wal/xlogtemp.42": No space left on device',
    },
    'disk-full',
  ],
  ['out of memory', { code: '53200' }, 'resources'],
  ['too many connections', { code: '53300' }, 'resources'],
  ['insufficient resources', { code: '53000' }, 'resources'],
  [
    'read-only transaction',
    { code: '25006', message: 'cannot execute INSERT in a read-only transaction' },
    'read-only',
  ],
  [
    'read-only filesystem (PGlite)',
    {
      code: '42501',
      severity: 'PANIC',
      message:
        'could not write to log file "000000010000000000000001" at offset 7503872, length 8192: Read-only file system',
    },
    'read-only',
  ],
  [
    'forbidden data file (PGlite)',
    { code: '42501', message: 'could not open file "base/5/2650": Permission denied' },
    'read-only',
  ],
  [
    'I/O error',
    { code: '58030', message: 'could not read block 0 in file "base/5/1259": Input/output error' },
    'storage',
  ],
  ['any other PANIC', { code: 'XX000', severity: 'PANIC' }, 'storage'],
  [
    'missing privilege (a deployment bug, not an outage)',
    { code: '42501', message: 'permission denied for table checks' },
    undefined,
  ],
  ['unique violation', { code: '23505' }, undefined],
  ['bad input', { code: '22P02' }, undefined],
  ['wrong password (configuration)', { code: '28P01', severity: 'FATAL' }, undefined],
  ['a plain Error', new Error('boom'), undefined],
  ['nothing', null, undefined],
];

test('each failure class is told apart: outages by reason, everything else left alone', () => {
  for (const [what, err, reason] of CASES) assert.equal(classify(err), reason, what);
});

test('translate turns outages into DatabaseUnavailableError and returns other errors unchanged', () => {
  const refused = translate(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  assert.ok(refused instanceof DatabaseUnavailableError);
  assert.equal(refused.reason, 'unreachable');
  assert.equal(refused.message, 'database unavailable (unreachable)', 'no query text, no values');
  assert.equal(translate(refused), refused);
  const unique = Object.assign(new Error('duplicate key value'), { code: '23505' });
  assert.equal(translate(unique), unique);
});

test('the latch keeps disk-full and resource failures for its hold time only, and nothing else', () => {
  const latch = new FaultLatch(5000);
  latch.note(new DatabaseUnavailableError('unreachable'));
  latch.note(new Error('not an outage'));
  assert.equal(latch.current(), undefined, 'readiness probes connections itself');
  latch.note(new DatabaseUnavailableError('disk-full'));
  assert.equal(latch.current()?.reason, 'disk-full');
  assert.equal(latch.current(Date.now() + 5001), undefined);
});

test('a loop that keeps failing on an unavailable database logs once per interval, with the count it skipped', () => {
  const lines: [object, string][] = [];
  let now = 0;
  const report = createFaultReporter(
    { warn: (o: object, m: string) => lines.push([o, m]) } as never,
    30_000,
    () => now,
  );
  for (let i = 0; i < 100; i++) {
    assert.equal(report(new DatabaseUnavailableError('timeout'), 'claiming work'), true);
    now += 100;
  }
  assert.equal(report(new Error('a bug'), 'claiming work'), false, 'other errors are the caller’s to log');
  assert.deepEqual(lines, [
    [{ reason: 'timeout', suppressed: 0 }, 'claiming work: database unavailable; will retry'],
  ]);
  now = 30_000;
  report(new DatabaseUnavailableError('read-only'), 'claiming work');
  assert.deepEqual(lines[1], [
    { reason: 'read-only', suppressed: 99 },
    'claiming work: database unavailable; will retry',
  ]);
});
