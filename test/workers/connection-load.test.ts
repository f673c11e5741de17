import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLAIM_AHEAD, ConnectionLoad } from '../../src/workers/connection-load.ts';

test('a limited connection is saturated at CLAIM_AHEAD checks per slot, and free again as they finish', () => {
  const load = new ConnectionLoad();
  const cap = 3 * CLAIM_AHEAD;
  for (let i = 0; i < cap - 1; i++) load.take('stedi', 3);
  assert.deepEqual(load.saturated(), [], 'one below the cap');
  load.take('stedi', 3);
  assert.deepEqual(load.saturated(), ['stedi']);
  load.drop('stedi');
  assert.deepEqual(load.saturated(), [], 'a finished check frees a place');
});

test('connections without a limit, and checks without a connection, are never skipped', () => {
  const load = new ConnectionLoad();
  for (let i = 0; i < 1000; i++) {
    load.take('unlimited', undefined);
    load.take('', 5);
  }
  assert.deepEqual(load.saturated(), []);
});

test('a changed limit applies from the next check taken; a connection dropped to zero is forgotten', () => {
  const load = new ConnectionLoad();
  load.take('a', 1);
  load.take('a', 1);
  assert.deepEqual(load.saturated(), ['a']);
  load.take('a', 5);
  assert.deepEqual(load.saturated(), [], 'the directory now allows 5 at once');
  for (let i = 0; i < 3; i++) load.drop('a');
  load.drop('a');
  load.take('a', 1);
  assert.deepEqual(load.saturated(), [], 'counting starts again from one');
});
