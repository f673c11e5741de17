/**
 * The PGlite store's one-statement-at-a-time queue (src/store/pglite.ts `oneAtATime`) in its two lanes: a
 * background statement (src/store/statement-lane.ts) waits behind the others, but gets every
 * BACKGROUND_TURN_EVERY-th turn while both wait; statements never overlap; errors reach their caller.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKGROUND_TURN_EVERY, oneAtATime } from '../../src/store/pglite.ts';
import { inBackground, inBackgroundLane } from '../../src/store/statement-lane.ts';

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

test('background statements wait behind the others, yet get every few turns; none overlap', async () => {
  const exclusive = oneAtATime();
  const order: string[] = [];
  let running = 0;
  const statement = (name: string) =>
    exclusive(async () => {
      running++;
      assert.equal(running, 1, 'two statements at once');
      await new Promise((r) => setImmediate(r));
      order.push(name);
      running--;
      return name;
    });
  const first = gate();
  const blocking = exclusive(() => first.opened.then(() => 'first'));
  const all = [
    ...['b1', 'b2', 'b3'].map((n) => inBackgroundLane(() => statement(n))),
    ...['i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7'].map((n) => statement(n)),
  ];
  first.open();
  assert.equal(await blocking, 'first');
  assert.deepEqual(await Promise.all(all), ['b1', 'b2', 'b3', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7']);
  assert.equal(BACKGROUND_TURN_EVERY, 4);
  // Queued behind the first: three interactive turns, then a background one, and so on; then the rest.
  assert.deepEqual(order, ['i1', 'i2', 'i3', 'b1', 'i4', 'i5', 'i6', 'b2', 'i7', 'b3']);
});

test('alone, a background statement runs at once; the lane follows the async context', async () => {
  const exclusive = oneAtATime();
  assert.equal(await inBackgroundLane(() => exclusive(async () => inBackground())), true);
  assert.equal(await exclusive(async () => inBackground()), false);
  // Nested awaits keep the lane.
  const nested = await inBackgroundLane(async () => {
    await new Promise((r) => setTimeout(r, 1));
    return inBackground();
  });
  assert.equal(nested, true);
});

test('a statement that fails, or throws before it starts, fails for its caller only', async () => {
  const exclusive = oneAtATime();
  const failing = exclusive(() => Promise.reject(new Error('refused')));
  const throwing = exclusive((): Promise<never> => {
    throw new Error('at once');
  });
  const after = exclusive(async () => 'next');
  await assert.rejects(failing, /refused/);
  await assert.rejects(throwing, /at once/);
  assert.equal(await after, 'next');
});
