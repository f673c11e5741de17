/**
 * Sandbox behaviour over time: latency and abort, the slow, flaky and silent members, and malformed 270s.
 * Timing tests use mocked timers, so nothing here waits for real.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { PermanentPayerError, TransientPayerError } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { readSegments } from '../../src/x12/segments.ts';
import { member } from '../helpers/members.ts';
import { ebRows, inquiryText, loops, never, type Person, text } from './helpers.ts';

const JANE = member('SBX1000001');
const DAVID = member('SBX1000007');
const SUSAN = member('SBX1000008');
const JAMES = member('SBX1000009');

/** Tracks whether a promise has settled, without awaiting it. */
function watch<T>(p: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}
/** Lets pending promise callbacks run (mocked timers do not mock setImmediate). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('latency (mocked timers)', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  async function answeredAfter(
    options: Parameters<typeof createSandboxConnector>[0],
    person: Person,
    ms: number,
  ) {
    const call = watch(createSandboxConnector(options).send(inquiryText(person), { signal: never() }));
    await flush();
    mock.timers.tick(ms - 1);
    await flush();
    assert.equal(call.settled, false, `answered before ${ms} ms`);
    mock.timers.tick(1);
    await flush();
    assert.equal(call.settled, true, `not answered at ${ms} ms`);
    assert.equal(call.error, undefined);
    return call.value!;
  }

  test('a fixed latency delays the answer by exactly that much', async () => {
    await answeredAfter({ latencyMs: 250 }, JANE, 250);
  });

  test('default latency is uniform in 300–1500 ms', async () => {
    await answeredAfter({ random: () => 0 }, JANE, 300);
    await answeredAfter({ random: () => 0.5 }, JANE, 900);
  });

  test('a latency range draws from min..max', async () => {
    await answeredAfter({ latencyMs: { min: 100, max: 200 }, random: () => 0.25 }, JANE, 125);
  });

  test('SBX1000007 answers after 20 × the base latency', async () => {
    const answer = await answeredAfter({ latencyMs: 100 }, DAVID, 2000);
    assert.equal(readSegments(answer).segments.filter((s) => s.id === 'AAA').length, 0);
    await answeredAfter({ random: () => 0 }, DAVID, 6000); // at least 5 s with the default latency
  });

  test('an abort during the latency rejects at once with TransientPayerError', async () => {
    const controller = new AbortController();
    const call = watch(
      createSandboxConnector({ latencyMs: 1000 }).send(inquiryText(JANE), { signal: controller.signal }),
    );
    await flush();
    mock.timers.tick(500);
    controller.abort();
    await flush();
    assert.equal(call.settled, true);
    assert.ok(call.error instanceof TransientPayerError);
    assert.doesNotMatch((call.error as Error).message, /SBX|JANE|DOE|1980/);
  });
});

describe('aborts and the silent member', () => {
  test('an already aborted signal rejects without waiting', async () => {
    const signal = AbortSignal.abort();
    await assert.rejects(
      createSandboxConnector({ latencyMs: 60_000 }).send(inquiryText(JANE), { signal }),
      TransientPayerError,
    );
  });

  test('SBX1000009 never answers, even with latency 0, and rejects with TransientPayerError on abort', async () => {
    const controller = new AbortController();
    const call = watch(
      createSandboxConnector({ latencyMs: 0 }).send(inquiryText(JAMES), { signal: controller.signal }),
    );
    for (let i = 0; i < 5; i++) await flush();
    // Timers fire in the order they fall due, so this one fires after any the call armed for up to 20 ms
    // (such as setTimeout(NaN), 1 ms: the trap of 0 × Infinity latency).
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(call.settled, false, 'answered');
    controller.abort();
    await flush();
    assert.ok(call.error instanceof TransientPayerError);
  });

  test('SBX1000009 gives up with a timeout signal as the worker passes it', async () => {
    // AbortSignal.timeout does not hold the event loop open and a silent payer has no timer of its own.
    const keepAlive = setTimeout(() => {}, 5000);
    await assert.rejects(
      createSandboxConnector({ latencyMs: 0 }).send(inquiryText(JAMES), { signal: AbortSignal.timeout(30) }),
      TransientPayerError,
    );
    clearTimeout(keepAlive);
  });
});

describe('flaky member SBX1000008', () => {
  const call = (connector: ReturnType<typeof createSandboxConnector>, trace: string) =>
    connector.send(inquiryText(SUSAN, trace), { signal: never() }).then((t) => readSegments(t).segments);
  const sourceAaa = (segments: ReturnType<typeof readSegments>['segments']) =>
    loops(segments)
      .source.filter((s) => s.id === 'AAA')
      .map((s) => text(s));

  test('first two calls per trace answer AAA*Y**42*R in 2100A; the third answers like SBX1000001', async () => {
    const sandbox = createSandboxConnector({ latencyMs: 0 });
    for (let i = 1; i <= 2; i++) {
      const segments = await call(sandbox, 'T-1');
      assert.deepEqual(sourceAaa(segments), ['AAA*Y**42*R'], `attempt ${i}`);
      assert.equal(ebRows(loops(segments).subscriber).length, 0);
      assert.equal(text(loops(segments).subscriber.find((s) => s.id === 'TRN')), 'TRN*2*T-1*9ELIGSVC00');
    }
    const third = await call(sandbox, 'T-1');
    assert.deepEqual(sourceAaa(third), []);
    assert.equal(third.filter((s) => s.id === 'AAA').length, 0);
    const rows = ebRows(loops(third).subscriber);
    assert.equal(rows[0]!.eb.join('*'), 'EB*1*IND*30*PR*Sandbox PPO Gold');
    assert.ok(rows.some((r) => r.eb.join('*') === 'EB*B*IND*PT***27*30****N*Y'));
    assert.equal(
      text(loops(third).subscriber.find((s) => s.id === 'NM1')),
      'NM1*IL*1*DAVIS*SUSAN****MI*SBX1000008',
    );
    assert.deepEqual(sourceAaa(await call(sandbox, 'T-1')), [], 'keeps answering after the third call');
  });

  test('each trace number is counted separately, and each connector has its own counts', async () => {
    const sandbox = createSandboxConnector({ latencyMs: 0 });
    await call(sandbox, 'A');
    await call(sandbox, 'A');
    assert.deepEqual(sourceAaa(await call(sandbox, 'B')), ['AAA*Y**42*R']);
    assert.deepEqual(sourceAaa(await call(sandbox, 'A')), []);
    assert.deepEqual(sourceAaa(await call(createSandboxConnector({ latencyMs: 0 }), 'A')), ['AAA*Y**42*R']);
  });

  test('the attempt map is bounded: the least recently seen trace is forgotten', async () => {
    const sandbox = createSandboxConnector({ latencyMs: 0, flakyMemory: 2 });
    await call(sandbox, 'A');
    await call(sandbox, 'A');
    await call(sandbox, 'B');
    await call(sandbox, 'C'); // forgets A
    assert.equal(sandbox.rememberedTraces, 2);
    assert.deepEqual(sourceAaa(await call(sandbox, 'A')), ['AAA*Y**42*R'], 'A starts over');
    for (let i = 0; i < 50; i++) await call(sandbox, `X${i}`);
    assert.equal(sandbox.rememberedTraces, 2);
  });

  test('other members do not use the map', async () => {
    const sandbox = createSandboxConnector({ latencyMs: 0 });
    await sandbox.send(inquiryText(JANE, 'J'), { signal: never() });
    assert.equal(sandbox.rememberedTraces, 0);
  });
});

describe('malformed 270s', () => {
  const good = inquiryText(JANE);
  const PHI = /SBX1000001|JANE|DOE|19800115|TRACE0001/;
  const cases: [string, string][] = [
    ['not X12 at all', 'hello'],
    ['truncated before the ISA ends', good.slice(0, 80)],
    ['SE count wrong', good.replace(/SE\*\d+\*/, 'SE*3*')],
    ['IEA control number mismatch', good.replace(/IEA\*1\*\d+/, 'IEA*1*000000001')],
    ['GE control number mismatch', good.replace(/GE\*1\*\d+/, 'GE*1*77')],
    ['a 271 instead of a 270', good.replace('ST*270', 'ST*271')],
    [
      'no subscriber NM1',
      good.replace(/NM1\*IL[^~]*~\n/, '').replace(/SE\*(\d+)/, (_, n) => `SE*${Number(n) - 1}`),
    ],
    [
      'no payer NM1',
      good.replace(/NM1\*PR[^~]*~\n/, '').replace(/SE\*(\d+)/, (_, n) => `SE*${Number(n) - 1}`),
    ],
    ['missing GS', good.replace(/GS\*[^~]*~\n/, '')],
    [
      'dependent inquiry',
      good
        .replace('HL*3*2*22*0~', 'HL*3*2*22*1~')
        .replace('EQ*30~', 'HL*4*3*23*0~\nEQ*30~')
        .replace(/SE\*(\d+)/, (_, n) => `SE*${Number(n) + 1}`),
    ],
  ];
  for (const [label, x12] of cases) {
    test(`${label} → PermanentPayerError without PHI`, async () => {
      await assert.rejects(
        createSandboxConnector({ latencyMs: 0 }).send(x12, { signal: never() }),
        (err: unknown) => {
          assert.ok(err instanceof PermanentPayerError, `${label}: ${(err as Error).name}`);
          assert.doesNotMatch(err.message, PHI);
          return true;
        },
      );
    });
  }

  test('a 270 with no DMG is answered AAA 58 (missing date of birth) in 2100C', async () => {
    const noDmg = good.replace(/DMG\*[^~]*~\n/, '').replace(/SE\*(\d+)/, (_, n) => `SE*${Number(n) - 1}`);
    const segments = readSegments(
      await createSandboxConnector({ latencyMs: 0 }).send(noDmg, { signal: never() }),
    ).segments;
    assert.deepEqual(
      segments.filter((s) => s.id === 'AAA').map((s) => text(s)),
      ['AAA*N**58*C'],
    );
  });

  test('a 270 written with other delimiters is read; a value the 271 cannot carry is refused', async () => {
    const piped = good.replaceAll('*', '|').replace('ISA|', 'ISA|');
    const segments = readSegments(
      await createSandboxConnector({ latencyMs: 0 }).send(piped, { signal: never() }),
    ).segments;
    assert.equal(segments.filter((s) => s.id === 'AAA').length, 0);
    const star = piped.replace('|Test Clinic|', '|Test*Clinic|');
    await assert.rejects(
      createSandboxConnector({ latencyMs: 0 }).send(star, { signal: never() }),
      PermanentPayerError,
    );
  });
});

describe('options', () => {
  test('invalid latency settings are refused at creation', () => {
    for (const latencyMs of [
      -1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      { min: 10, max: 5 },
      { min: -1, max: 5 },
    ]) {
      assert.throws(() => createSandboxConnector({ latencyMs }), RangeError, JSON.stringify(latencyMs));
    }
  });

  test('the connector is named sandbox', () => {
    assert.equal(createSandboxConnector().name, 'sandbox');
  });
});
