/**
 * The worker loop while the database is unavailable: it keeps trying at the polling interval (no spin,
 * no crash) and logs the outage once per interval, not once per failure.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from 'pino';
import type { Db } from '../../src/store/db.ts';
import { DatabaseUnavailableError } from '../../src/store/faults.ts';
import { QueueRunner } from '../../src/workers/queue-runner.ts';

const POLL_MS = 50;

function recordingLog() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const at = (level: string) => (obj: object, msg: string) => lines.push({ level, obj, msg });
  return { lines, log: { warn: at('warn'), error: at('error'), info: at('info') } as unknown as Logger };
}

const db = { listen: async () => async () => {} } as unknown as Db;

/** Resolves once `calls` reaches `n`. */
function counter(n: number) {
  const times: number[] = [];
  let reached: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    times,
    done,
    call() {
      times.push(performance.now());
      if (times.length === n) reached();
    },
  };
}

test('claims that fail because the database is unavailable are retried every poll interval and logged once', async () => {
  const { lines, log } = recordingLog();
  const claims = counter(6);
  const runner = new QueueRunner<{ id: string }>({
    db,
    log,
    channel: 'test',
    concurrency: 4,
    pollMs: POLL_MS,
    claim: async () => {
      claims.call();
      throw new DatabaseUnavailableError('unreachable');
    },
    handle: async () => {},
    nextDueIn: async () => {
      throw new DatabaseUnavailableError('unreachable');
    },
  });
  await runner.start();
  await claims.done;
  await runner.stop();
  const gaps = claims.times.slice(1).map((t, i) => t - claims.times[i]!);
  assert.ok(
    gaps.every((ms) => ms >= POLL_MS - 5),
    `attempts ${POLL_MS} ms apart, not in a loop: ${gaps.map(Math.round).join(', ')} ms`,
  );
  assert.deepEqual(lines, [
    {
      level: 'warn',
      obj: { reason: 'unreachable', suppressed: 0 },
      msg: 'claiming work: database unavailable; will retry',
    },
  ]);
});

test('a handler that fails because the database is unavailable is logged once as an outage, not as an error per row', async () => {
  const { lines, log } = recordingLog();
  const handled = counter(3);
  let next = 0;
  const runner = new QueueRunner<{ id: string }>({
    db,
    log,
    channel: 'test',
    concurrency: 1,
    pollMs: POLL_MS,
    claim: async () => [{ id: `row-${next++}` }],
    handle: async () => {
      handled.call();
      throw new DatabaseUnavailableError('timeout');
    },
  });
  await runner.start();
  await handled.done;
  await runner.stop();
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [['warn', 'handling a claimed row: database unavailable; will retry']],
  );
});
