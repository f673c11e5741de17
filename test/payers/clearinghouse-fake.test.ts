/**
 * The fake clearinghouse itself: the x12-json protocol through the real connector, routing by payer id,
 * the account's concurrency and rate limits (429 with Retry-After), each payer's service-type behaviour,
 * down mode, the stats, and a 271 the project's own parser reads without an error.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { TransientPayerError } from '../../src/payers/connector.ts';
import type { ConnectorDeps } from '../../src/payers/connector-deps.ts';
import { createX12JsonConnector, type X12JsonGatewayConnector } from '../../src/payers/x12-json/index.ts';
import { build270 } from '../../src/x12/build270.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import {
  type ClearinghouseFake,
  clearinghousePayersFile,
  STC_BEHAVIOURS,
  startClearinghouseFake,
} from './fakes/clearinghouse.ts';
import { answeredCodes, behaviourByIndex } from './fakes/clearinghouse-271.ts';

const TRACE = 'CHTRACE0001';
const SUBSCRIBER = { memberId: 'M123456', firstName: 'ALEX', lastName: 'RIVER', dateOfBirth: '19800115' };

function inquiry(payerId: string, codes: string[] = ['30'], trace = TRACE): string {
  return build270(
    {
      payer: { name: 'Any Payer', id: payerId },
      provider: { npi: '1234567893', organizationName: 'Test Clinic' },
      subscriber: SUBSCRIBER,
      encounter: { serviceTypeCodes: codes },
      traceNumber: trace,
    },
    {
      senderId: 'ELIGSVC',
      receiverId: 'CLEARINGHOUSE',
      interchangeControlNumber: 7,
      now: new Date(),
      usageIndicator: 'T',
    },
  );
}

/** The `loops` form: one EQ segment per code in one 270, SE01 recounted. */
function inLoops(x12: string): string {
  const split = x12.replace(/^EQ\*([^~]*)~\n/m, (_, codes: string) =>
    codes
      .split('^')
      .map((c) => `EQ*${c}~\n`)
      .join(''),
  );
  const count = split.slice(split.indexOf('\nST*'), split.indexOf('\nSE*')).split('~').length;
  return split.replace(/^SE\*\d+\*/m, `SE*${count}*`);
}

function connect(fake: ClearinghouseFake, key = fake.apiKey): X12JsonGatewayConnector {
  const deps: ConnectorDeps = { secret: () => key, senderId: 'ELIGSVC', receiverId: 'CLEARINGHOUSE' };
  return createX12JsonConnector(
    { type: 'x12-json', url: fake.url, auth: { type: 'api-key', key: { env: 'K' } } },
    deps,
  );
}

function read(x12: string): Eligibility271 {
  const outcome = parse271(x12, { traceNumber: TRACE });
  assert.equal(outcome.kind, '271');
  if (outcome.kind !== '271') throw new Error('not a 271');
  return outcome.result;
}

/** Service type codes of the EB rows, each once, in order. */
const ebCodes = (r: Eligibility271) => [
  ...new Set(r.benefitsInformation.flatMap((b) => b.serviceTypeCodes ?? [])),
];

const post = (fake: ClearinghouseFake, x12: string, key = fake.apiKey) =>
  fetch(fake.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: key },
    body: JSON.stringify({ x12 }),
  });

describe('fake clearinghouse', () => {
  let fake: ClearinghouseFake;
  let connector: X12JsonGatewayConnector;
  const never = () => new AbortController().signal;
  before(async () => {
    fake = await startClearinghouseFake({ concurrency: 2 });
    connector = connect(fake);
  });
  after(async () => {
    await connector.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.setDown(false);
    fake.setLatency(0);
    fake.resetStats();
  });

  test('1 000 deterministic payers CH0001…CH1000, every behaviour among them', () => {
    assert.equal(fake.payers.length, 1000);
    assert.equal(fake.payers[0]!.id, 'CH0001');
    assert.equal(fake.payers.at(-1)!.id, 'CH1000');
    assert.deepEqual(new Set(fake.payers.map((p) => p.behaviour)), new Set(STC_BEHAVIOURS));
    assert.equal(fake.payer('CH0010')!.behaviour, behaviourByIndex(9));
  });

  test('a 270 for one payer gets a valid 271 from that payer: envelope, TRN echo, subscriber, EB rows', async () => {
    const x12 = await connector.send(inquiry('CH0001', ['30', '98']), { signal: never() });
    const result = read(x12);
    assert.deepEqual(
      result.issues.filter((i) => i.severity === 'error'),
      [],
    );
    assert.equal(result.payer.payerId, 'CH0001');
    assert.equal(result.payer.payerName, 'Clearinghouse Payer 0001');
    assert.equal(result.subscriber.memberId, SUBSCRIBER.memberId);
    assert.equal(result.subscriber.lastName, SUBSCRIBER.lastName);
    assert.ok(result.subscriberTraceNumbers.some((t) => t.referenceIdentification === TRACE));
    assert.equal(result.planActive, true);
    assert.deepEqual(ebCodes(result), ['30', '98']);
    const rows98 = result.benefitsInformation.filter((b) => b.serviceTypeCodes?.includes('98'));
    assert.ok(
      rows98.some((b) => b.code === '1'),
      'active coverage for 98',
    );
    assert.ok(
      rows98.some((b) => b.code === 'B' || b.code === 'A'),
      'a copay or coinsurance for 98',
    );
    const rows30 = result.benefitsInformation.filter((b) => b.serviceTypeCodes?.includes('30'));
    assert.ok(
      rows30.some((b) => b.code === 'C'),
      'a plan deductible',
    );
    assert.deepEqual(fake.stats.codesPerCall, [['30', '98']]);
    assert.equal(fake.stats.perPayer.get('CH0001'), 1);
  });

  test('each behaviour answers the codes it reads, in repeated EQ01 and in EQ loops', async () => {
    const codes = ['30', '98', 'PT'];
    const expected = {
      repeat: { repeated: codes, loops: codes },
      'first-repetition': { repeated: ['30'], loops: codes },
      'first-eq': { repeated: ['30'], loops: ['30'] },
      'generic-only': { repeated: ['30'], loops: ['30'] },
    };
    for (const behaviour of STC_BEHAVIOURS) {
      fake.setBehaviour('CH0002', behaviour);
      const repeated = read(await connector.send(inquiry('CH0002', codes), { signal: never() }));
      const loops = read(await connector.send(inLoops(inquiry('CH0002', codes)), { signal: never() }));
      assert.deepEqual(ebCodes(repeated), expected[behaviour].repeated, `${behaviour}, repeated EQ01`);
      assert.deepEqual(ebCodes(loops), expected[behaviour].loops, `${behaviour}, EQ loops`);
    }
    assert.deepEqual(fake.stats.log.at(-1)!.eq, [['30'], ['98'], ['PT']]);
    // first-eq needs one 270 per code: asked PT alone, it answers PT.
    fake.setBehaviour('CH0002', 'first-eq');
    assert.deepEqual(ebCodes(read(await connector.send(inquiry('CH0002', ['PT']), { signal: never() }))), [
      'PT',
    ]);
    // generic-only answers 30 with plan-level rows, whatever is asked.
    fake.setBehaviour('CH0002', 'generic-only');
    const generic = read(await connector.send(inquiry('CH0002', ['PT']), { signal: never() }));
    assert.deepEqual(ebCodes(generic), ['30']);
    assert.ok(
      generic.benefitsInformation.some((b) => b.code === 'G'),
      'out-of-pocket row',
    );
  });

  test('answeredCodes: a 270 without codes is generic, codes are answered once', () => {
    assert.deepEqual(answeredCodes('repeat', []), ['30']);
    assert.deepEqual(answeredCodes('repeat', [['98', '98'], ['98']]), ['98']);
  });

  test('the 270 is routed by NM109 of loop 2100A; an unknown payer id gets a 999', async () => {
    const known = read(await connector.send(inquiry('CH0999'), { signal: never() }));
    assert.equal(known.payer.payerId, 'CH0999');
    const outcome = parse271(await connector.send(inquiry('NOSUCHPAYER'), { signal: never() }));
    assert.equal(outcome.kind, 'rejected');
    assert.equal(fake.stats.log.at(-1)!.answer, '999');
  });

  test('a request beyond the concurrency limit gets 429 with Retry-After; the peak is recorded', async () => {
    const release = fake.hold();
    const answers = Array.from({ length: 5 }, () => post(fake, inquiry('CH0001')));
    // The account holds two; the other three are refused at once, whatever the order of arrival.
    while (fake.stats.tooManyRequests < 3) await new Promise((r) => setTimeout(r, 5));
    assert.equal(fake.stats.inFlight, 2);
    release();
    const done = await Promise.all(answers);
    assert.deepEqual(done.map((a) => a.status).sort(), [200, 200, 429, 429, 429]);
    assert.equal(done.find((a) => a.status === 429)!.headers.get('retry-after'), '1');
    assert.equal(fake.stats.tooManyRequests, 3);
    assert.equal(fake.stats.concurrencyRejections, 3);
    assert.equal(fake.stats.maxConcurrent, 3);
    assert.equal(fake.stats.inFlight, 0);
    assert.equal(fake.stats.calls, 5);
    assert.deepEqual(
      fake.stats.log.filter((c) => c.status === 429).map((c) => c.payerId),
      ['CH0001', 'CH0001', 'CH0001'],
    );
    await Promise.all(done.map((a) => a.text()));
  });

  test('through the x12-json connector, a 429 is a transient error that carries Retry-After, a 503 too', async () => {
    const release = fake.hold();
    const held = [
      connector.send(inquiry('CH0001'), { signal: never() }),
      connector.send(inquiry('CH0002'), { signal: never() }),
    ];
    while (fake.stats.inFlight < 2) await new Promise((r) => setTimeout(r, 5));
    await assert.rejects(connector.send(inquiry('CH0003'), { signal: never() }), (err: unknown) => {
      assert.ok(err instanceof TransientPayerError);
      assert.equal(err.retryAfterMs, 1000);
      return true;
    });
    release();
    await Promise.all(held);
    fake.setDown(true);
    await assert.rejects(connector.send(inquiry('CH0001'), { signal: never() }), TransientPayerError);
  });

  test('setDown(true) answers 503 until set back; a wrong key gets 401', async () => {
    fake.setDown(true);
    const down = await post(fake, inquiry('CH0001'));
    assert.equal(down.status, 503);
    await down.text();
    fake.setDown(false);
    assert.equal((await post(fake, inquiry('CH0001'))).status, 200);
    assert.equal((await post(fake, inquiry('CH0001'), 'wrong-key')).status, 401);
    assert.equal(fake.stats.unavailable, 1);
    assert.equal(fake.stats.unauthorized, 1);
  });
});

describe('fake clearinghouse rate limit', () => {
  test('beyond ratePerSecond in one rolling second: 429 with Retry-After', async () => {
    const fake = await startClearinghouseFake({
      payers: 3,
      concurrency: 50,
      ratePerSecond: 3,
      retryAfterSeconds: 2,
    });
    try {
      const statuses: number[] = [];
      const retryAfter: (string | null)[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await post(fake, inquiry('CH0001'));
        statuses.push(answer.status);
        retryAfter.push(answer.headers.get('retry-after'));
        await answer.text();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.deepEqual(retryAfter.slice(3), ['2', '2']);
      assert.equal(fake.stats.rateRejections, 2);
      assert.equal(fake.payers.length, 3);
    } finally {
      await fake.close();
    }
  });
});

describe('clearinghousePayersFile', () => {
  const payers = [
    { id: 'CH0001', name: 'Clearinghouse Payer 0001', behaviour: 'repeat' as const },
    { id: 'CH0009', name: 'Clearinghouse Payer 0009', behaviour: 'first-eq' as const },
  ];

  test('one shared connection with its limits, the payers naming it', () => {
    const file = clearinghousePayersFile({
      url: 'http://127.0.0.1:1/x12',
      connectionName: 'stedi',
      keyEnv: 'STEDI_API_KEY',
      limits: { concurrency: 5, ratePerSecond: 20 },
      payers,
      payerStrategies: 'by-behaviour',
    });
    assert.deepEqual(file.connections, {
      stedi: {
        type: 'x12-json',
        url: 'http://127.0.0.1:1/x12',
        auth: { type: 'api-key', key: { env: 'STEDI_API_KEY' } },
        limits: { concurrency: 5, ratePerSecond: 20 },
      },
    });
    assert.deepEqual(file.payers[1], {
      id: 'CH0009',
      name: 'Clearinghouse Payer 0009',
      payerId: 'CH0009',
      connection: 'stedi',
      stcStrategy: 'separate',
    });
  });

  test('failover connections are listed in order on every payer', () => {
    const file = clearinghousePayersFile({
      url: 'http://127.0.0.1:1/x12',
      payers,
      failover: [{ connectionName: 'backup', url: 'http://127.0.0.1:2/x12', keyEnv: 'BACKUP_KEY' }],
    });
    assert.deepEqual(Object.keys(file.connections), ['clearinghouse', 'backup']);
    assert.deepEqual(file.payers[0]!.connection, ['clearinghouse', 'backup']);
    assert.equal(file.payers[0]!.stcStrategy, undefined);
  });
});
