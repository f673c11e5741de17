import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createSchedule,
  MAX_ATTEMPTS,
  nextAttemptDelayMs,
  RETRY_DELAYS_SECONDS,
  TOTAL_SCHEDULE_HOURS,
} from '../../src/webhooks/schedule.ts';

const MIN = 60;
const HOUR = 3600;
// The documented table, written out by hand.
const DOCUMENTED = [5, 30, 2 * MIN, 10 * MIN, 30 * MIN, HOUR, 2 * HOUR, 4 * HOUR, ...Array(8).fill(8 * HOUR)];
const middle = () => 0.5;

describe('retry schedule', () => {
  test('follows the documented table without jitter (random = 0.5)', () => {
    assert.deepEqual(RETRY_DELAYS_SECONDS, DOCUMENTED);
    for (const [i, seconds] of DOCUMENTED.entries()) {
      assert.equal(nextAttemptDelayMs(i + 1, middle), seconds * 1000, `after attempt ${i + 1}`);
    }
  });

  test('17 attempts over about three days, then it gives up', () => {
    assert.equal(MAX_ATTEMPTS, 17);
    assert.equal(TOTAL_SCHEDULE_HOURS.toFixed(2), '71.71');
    assert.notEqual(
      nextAttemptDelayMs(MAX_ATTEMPTS - 1, middle),
      null,
      'a 17th attempt follows the 16th failure',
    );
    assert.equal(nextAttemptDelayMs(MAX_ATTEMPTS, middle), null, 'give up after the 17th failure');
    assert.equal(nextAttemptDelayMs(100, middle), null);
  });

  test('jitter stays within ±20 % and reaches both ends', () => {
    assert.equal(
      nextAttemptDelayMs(1, () => 0),
      4000,
    );
    assert.equal(
      nextAttemptDelayMs(1, () => 0.999_999),
      6000,
    );
    assert.equal(
      nextAttemptDelayMs(9, () => 0),
      0.8 * 8 * HOUR * 1000,
    );
    let seed = 7;
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const base = DOCUMENTED[attempt - 1]! * 1000;
      for (let i = 0; i < 200; i++) {
        const delay = nextAttemptDelayMs(attempt, rand)!;
        assert.ok(delay >= base * 0.8 && delay <= base * 1.2, `${attempt}: ${delay}`);
      }
    }
  });

  test('jitter actually varies with Math.random by default', () => {
    const seen = new Set(Array.from({ length: 50 }, () => nextAttemptDelayMs(6)));
    assert.ok(seen.size > 40, `${seen.size} distinct delays`);
  });

  test('the whole span with jitter stays between 57 and 87 hours', () => {
    const span = (r: number) =>
      DOCUMENTED.reduce((sum, _s, i) => sum + nextAttemptDelayMs(i + 1, () => r)!, 0) / 3.6e6;
    assert.ok(span(0) > 57 && span(0) < 58, String(span(0)));
    assert.ok(span(1) > 86 && span(1) < 87, String(span(1)));
  });

  test('a scale factor shrinks the schedule for tests, keeping its shape', () => {
    const fast = createSchedule({ scale: 0.001 });
    assert.equal(fast.nextAttemptDelayMs(1, middle), 5);
    assert.equal(fast.nextAttemptDelayMs(9, middle), 28_800);
    assert.equal(fast.nextAttemptDelayMs(MAX_ATTEMPTS, middle), null);
    assert.equal(createSchedule({ scale: 1e-9 }).nextAttemptDelayMs(1, middle), 1, 'never below 1 ms');
    assert.equal(createSchedule().maxAttempts, MAX_ATTEMPTS);
  });

  test('nonsense input is refused loudly', () => {
    for (const scale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      assert.throws(() => createSchedule({ scale }), RangeError);
    for (const n of [0, -1, 1.5, Number.NaN])
      assert.throws(() => nextAttemptDelayMs(n), RangeError, String(n));
    assert.equal(
      nextAttemptDelayMs(1, () => 7),
      6000,
      'a broken random source is clamped',
    );
  });
});
