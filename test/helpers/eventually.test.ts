import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from './eventually.ts';

test('returns the first truthy result, retrying falsy results and throws', async () => {
  let calls = 0;
  const value = await eventually(
    () => {
      calls++;
      if (calls === 1) throw new Error('not yet');
      return calls === 2 ? 0 : { calls };
    },
    { intervalMs: 1 },
  );
  assert.deepEqual(value, { calls: 3 });
});

test('on timeout the error names what was awaited and carries the last failure', async () => {
  let calls = 0;
  const error = await eventually(
    () => {
      calls++;
      throw new Error(`failure ${calls}`);
    },
    { timeoutMs: 50, intervalMs: 5, what: 'the thing' },
  ).catch((err: Error) => err);
  assert.ok(error instanceof Error);
  assert.match(
    error.message,
    new RegExp(`^the thing did not hold within 50 ms; last failure: failure ${calls}$`),
  );
  assert.equal((error.cause as Error).message, `failure ${calls}`);
  assert.ok(calls > 1, 'it retried');
});

test('a falsy last result is reported as such', async () => {
  await assert.rejects(
    eventually(() => null, { timeoutMs: 30, intervalMs: 5 }),
    /last result: null$/,
  );
});

test('an attempt that never settles is cut off at the deadline', async () => {
  const started = Date.now();
  await assert.rejects(
    eventually(() => new Promise(() => {}), { timeoutMs: 50 }),
    /still running when the remaining \d+ ms ran out/,
  );
  assert.ok(Date.now() - started < 1000);
});
