import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nap } from '../../src/workers/nap.ts';

const settled = (p: Promise<void>) =>
  Promise.race([p.then(() => true), new Promise((r) => setImmediate(r, false))]);

test('a nap lasts its time unless woken; a wake-up ends it at once', async () => {
  const nap = new Nap();
  nap.begin();
  const sleeping = nap.sleep(60_000);
  assert.equal(await settled(sleeping), false, 'still asleep');
  nap.wake();
  assert.equal(await settled(sleeping), true);
  nap.begin();
  const started = performance.now();
  await nap.sleep(20);
  assert.ok(performance.now() - started >= 15, 'the timer ends an unwoken nap');
});

test('a wake-up while the loop is busy is kept for the next nap; begin() forgets it', async () => {
  const nap = new Nap();
  nap.begin();
  nap.wake(); // arrives between the claim and the nap
  assert.equal(await settled(nap.sleep(60_000)), true, 'the next nap returns at once');
  nap.begin();
  const sleeping = nap.sleep(60_000);
  assert.equal(await settled(sleeping), false, 'an earlier wake-up no longer counts');
  nap.wake();
  await sleeping;
});
