/**
 * The behaviour both CAQH CORE connectors (SOAP and MIME) must show against their fake gateway; each
 * test file runs it for its own wire format and adds what is specific to it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ConnectionThrottledError,
  PayerAuthenticationError,
  TransientPayerError,
} from '../../src/payers/connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../../src/payers/connector-deps.ts';
import type { CoreMimeConnector, CoreSoapConnector } from '../../src/payers/directory-schema.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import { describeClientCertificates } from './core-certificates.ts';
import type { CoreFake, CoreFakeOptions, CoreFault } from './fakes/core-common.ts';
import type { TransportFault } from './fakes/server.ts';
import {
  assertClean,
  deps,
  failsWith,
  inquiry,
  miscounted270,
  PAYER_ID,
  ref,
  SECRETS,
  SENDER_ID,
  TRACE,
} from './gateway-helpers.ts';

export interface CoreKind {
  type: 'caqh-core-soap' | 'caqh-core-mime';
  start: (options: CoreFakeOptions) => Promise<CoreFake>;
  create: (config: CoreSoapConnector & CoreMimeConnector, deps: ConnectorDeps) => GatewayConnector;
}

const BUDGET_MS = 400;
const SLACK_MS = 250;
const never = () => new AbortController().signal;

export function describeCoreConnector(kind: CoreKind): void {
  const fakeOptions: CoreFakeOptions = {
    payerId: PAYER_ID,
    senderId: SENDER_ID,
    receiverId: PAYER_ID,
    username: SECRETS.CORE_USER,
    password: SECRETS.CORE_PASSWORD,
  };
  const config = (url: string, over: object = {}) =>
    ({ type: kind.type, url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD'), ...over }) as never;
  let fake: CoreFake;
  let connector: GatewayConnector;
  before(async () => {
    fake = await kind.start(fakeOptions);
    connector = kind.create(config(fake.url), deps());
  });
  after(async () => {
    await connector.close();
    await fake.close();
  });
  const send = (budgetMs = 5_000, onExchangeId?: (id: string) => void) =>
    connector.send(inquiry(), {
      signal: AbortSignal.timeout(budgetMs),
      ...(onExchangeId ? { onExchangeId } : {}),
    });

  test('returns the 271 the gateway sent, byte for byte, after a request the gateway found valid', async () => {
    fake.setMode('ok');
    const ids: string[] = [];
    const x12_270 = inquiry();
    const x12 = await connector.send(x12_270, {
      signal: AbortSignal.timeout(5_000),
      onExchangeId: (id) => ids.push(id),
    });
    const seen = fake.requests.at(-1)!;
    assert.deepEqual(seen.problems, []);
    assert.equal(seen.fields.Payload, x12_270, 'the 270 arrives byte for byte');
    assert.equal(x12, fake.answers.at(-1));
    assert.equal(connector.name, kind.type);
    assert.deepEqual(ids, [seen.fields.PayloadID]);
    const outcome = parse271(x12, { traceNumber: TRACE });
    assert.equal(outcome.kind, '271');
  });

  test('CORE fields: fixed values, a fresh UUID PayloadID per request, UTC TimeStamp, ids from deps', async () => {
    fake.setMode('ok');
    const now = new Date('2026-11-24T10:15:30.789Z');
    const c = kind.create(config(fake.url), deps({ now: () => now }));
    try {
      await c.send(inquiry(), { signal: never() });
      await c.send(inquiry(), { signal: never() });
    } finally {
      await c.close();
    }
    const [a, b] = fake.requests.slice(-2).map((r) => r.fields);
    assert.equal(a!.PayloadType, 'X12_270_Request_005010X279A1');
    assert.equal(a!.ProcessingMode, 'RealTime');
    assert.equal(a!.CORERuleVersion, '2.2.0');
    assert.equal(a!.TimeStamp, '2026-11-24T10:15:30Z');
    assert.equal(a!.SenderID, SENDER_ID);
    assert.equal(a!.ReceiverID, PAYER_ID);
    assert.match(a!.PayloadID!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a!.PayloadID, b!.PayloadID);
  });

  test("a config's senderId / receiverId override the directory's defaults", async () => {
    const other = await kind.start({ ...fakeOptions, senderId: 'SUBMITTER9', receiverId: 'GATEWAY7' });
    const c = kind.create(config(other.url, { senderId: 'SUBMITTER9', receiverId: 'GATEWAY7' }), deps());
    try {
      await c.send(inquiry(), { signal: never() });
      assert.deepEqual(other.requests[0]!.problems, []);
      assert.equal(other.requests[0]!.fields.SenderID, 'SUBMITTER9');
      assert.equal(other.requests[0]!.fields.ReceiverID, 'GATEWAY7');
    } finally {
      await c.close();
      await other.close();
    }
  });

  test('999 and TA1 rejections come back as X12 for the caller to parse', async () => {
    for (const mode of ['999', 'ta1'] as const) {
      fake.setMode(mode);
      const x12 = await send();
      assert.equal(x12, fake.answers.at(-1));
      const outcome = parse271(x12);
      assert.equal(outcome.kind, 'rejected', mode);
      if (outcome.kind === 'rejected') assert.equal(outcome.rejection.kind, mode === 'ta1' ? 'TA1' : '999');
    }
  });

  test('a 271 answering another inquiry is returned as is: the caller checks the trace', async () => {
    fake.setMode('foreign-trace');
    const x12 = await send();
    assert.equal(x12, fake.answers.at(-1));
    assert.ok(!x12.includes(`TRN*2*${TRACE}`), 'the 271 echoes another trace');
  });

  test('the fake notices what a real gateway would: the payer id, envelope counts, envelope fields', async () => {
    fake.setMode('ok');
    const other = parse271(
      await connector.send(inquiry(undefined, undefined, 'OTHERPAYER'), { signal: never() }),
    );
    assert.equal(other.kind, 'rejected', 'a 999 for an inquiry addressed to another payer');
    assert.deepEqual(fake.requests.at(-1)!.problems, ['NM109 of loop 2100A is not the payer id']);
    const miscounted = parse271(await connector.send(miscounted270(), { signal: never() }));
    assert.equal(miscounted.kind, 'rejected', 'a 999 for a miscounted transaction');
    assert.deepEqual(fake.requests.at(-1)!.problems, ['SE01 does not count the segments']);
    const c = kind.create(config(fake.url, { senderId: 'NOTUS' }), deps());
    try {
      await failsWith(
        c.send(inquiry(), { signal: never() }),
        TransientPayerError,
        /ErrorCode SenderIDIllegal/,
      );
      assert.deepEqual(fake.requests.at(-1)!.problems, ['SenderID is wrong']);
    } finally {
      await c.close();
    }
  });

  const faults: [CoreFault | TransportFault, new (...a: never[]) => Error, RegExp, number?][] = [
    ['error-code', TransientPayerError, /ErrorCode Receiver\.Down/],
    ['auth-error-code', PayerAuthenticationError, /credentials \(ErrorCode UnAuthorized\)/],
    ['401', PayerAuthenticationError, /credentials \(HTTP 401\)/],
    ['403', PayerAuthenticationError, /credentials \(HTTP 403\)/],
    ['503-retry-after', TransientPayerError, /HTTP 503/, 7_000],
    ['429-retry-after', ConnectionThrottledError, /HTTP 429/, 3_000],
    ['wrong-payload-id', TransientPayerError, /PayloadID does not echo/],
    ['missing-field', TransientPayerError, /lacks Payload/],
    ['non-x12', TransientPayerError, /payload is not X12/],
    ['html', TransientPayerError, /HTML page/],
    ['broken-body', TransientPayerError, /malformed/],
  ];
  for (const [mode, kindOfError, pattern, retryAfterMs] of faults) {
    test(`fault ${mode} → ${kindOfError.name}`, async () => {
      fake.setMode(mode);
      const err = await failsWith(send(), kindOfError, pattern);
      assert.deepEqual(fake.requests.at(-1)!.problems, [], 'the fake saw a valid request');
      if (retryAfterMs) assert.equal((err as TransientPayerError).retryAfterMs, retryAfterMs);
    });
  }

  test('the PayloadID mismatch message names only our own PayloadID', async () => {
    fake.setMode('wrong-payload-id');
    let ours = '';
    const err = await failsWith(
      send(5_000, (id) => (ours = id)),
      TransientPayerError,
      /PayloadID/,
    );
    assert.ok(err.message.includes(ours));
    assert.ok(!err.message.includes('00000000-0000-4000-8000-000000000000'));
  });

  test('a gateway 5xx is transient, and the next call succeeds', async () => {
    fake.setMode('5xx-then-ok');
    await failsWith(send(), TransientPayerError, /HTTP 502/);
    assert.equal(await send(), fake.answers.at(-1));
  });

  test('wrong credentials: PayerAuthenticationError, the password never in the message', async () => {
    fake.setMode('ok');
    const c = kind.create(config(fake.url, { password: ref('STEDI_KEY') }), deps());
    try {
      await failsWith(c.send(inquiry(), { signal: never() }), PayerAuthenticationError, /credentials/);
      assert.ok(fake.requests.at(-1)!.problems.some((p) => /credentials/.test(p)));
    } finally {
      await c.close();
    }
  });

  for (const mode of ['slow', 'never-ending'] as const) {
    test(`${mode} answer: TransientPayerError within the time budget`, async () => {
      fake.setMode(mode, { slowMs: 10_000 });
      const started = performance.now();
      await failsWith(send(BUDGET_MS), TransientPayerError, /within the time budget/);
      const took = performance.now() - started;
      assert.ok(took < BUDGET_MS + SLACK_MS, `took ${took.toFixed(0)} ms`);
    });
  }

  test('a 50 MB answer stops at the 5 MB cap with bounded memory, announced or not', async () => {
    fake.setMode('huge');
    globalThis.gc?.();
    const before = process.memoryUsage();
    await failsWith(send(10_000), TransientPayerError, /answer too large/);
    const after = process.memoryUsage();
    const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    assert.ok(fake.bytesStreamed < 20 * 1024 * 1024, `the fake wrote ${fake.bytesStreamed} bytes`);
    assert.ok(grown < 25 * 1024 * 1024, `memory grew by ${grown} bytes`);
    fake.setMode('huge', { hugeAnnounced: true });
    await failsWith(send(10_000), TransientPayerError, /answer too large/);
    assert.ok(fake.bytesStreamed < 20 * 1024 * 1024, 'an announced size over the cap is refused unread');
  });

  test('nothing listening: TransientPayerError naming the error code only', async () => {
    const closed = await kind.start(fakeOptions);
    await closed.close();
    const c = kind.create(config(closed.url), deps());
    try {
      await failsWith(
        c.send(inquiry(), { signal: never() }),
        TransientPayerError,
        /connection .* failed \(ECONNREFUSED\)/,
      );
    } finally {
      await c.close();
    }
  });

  test('the factory refuses a config without a complete authentication form, naming fields only', () => {
    const cases: [object, RegExp][] = [
      [
        { username: undefined, password: undefined },
        /"username" and "password", or "clientCert" and "clientKey"/,
      ],
      [{ password: undefined }, /"password" is required with "username"/],
      [{ username: undefined }, /"username" is required with "password"/],
      [{ clientCert: ref('CORE_USER') }, /"clientKey" is required with "clientCert"/],
    ];
    for (const [over, pattern] of cases) {
      assert.throws(
        () => kind.create(config('http://127.0.0.1:9/', over), deps()),
        (err: Error) => {
          assert.match(err.message, pattern);
          assertClean(err.message);
          return true;
        },
      );
    }
  });

  describeClientCertificates(kind, fakeOptions);
}
