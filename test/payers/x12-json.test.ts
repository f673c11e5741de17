/**
 * x12-json against the fake clearinghouse: the API-key form (Stedi), the OAuth2 client-credentials form
 * (Optum/Change Healthcare) with its token cache, single flight and one refetch after a 401, and every
 * fault mapped to the right error class with a message free of PHI and secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ConnectionThrottledError,
  PayerAuthenticationError,
  PermanentPayerError,
  TransientPayerError,
} from '../../src/payers/connector.ts';
import type { ConnectorDeps } from '../../src/payers/connector-deps.ts';
import { createX12JsonConnector, type X12JsonGatewayConnector } from '../../src/payers/x12-json/index.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import type { TransportFault } from './fakes/server.ts';
import { startX12JsonFake, type X12JsonFake, type X12JsonFault } from './fakes/x12-json.ts';
import { deps, failsWith, inquiry, miscounted270, PAYER_ID, ref, SECRETS, TRACE } from './gateway-helpers.ts';

const BUDGET_MS = 400;
const SLACK_MS = 250;
const never = () => new AbortController().signal;

describe('x12-json with an API key', () => {
  let fake: X12JsonFake;
  let connector: X12JsonGatewayConnector;
  before(async () => {
    fake = await startX12JsonFake({ payerId: PAYER_ID, auth: { type: 'api-key', key: SECRETS.STEDI_KEY! } });
    connector = createX12JsonConnector(
      { type: 'x12-json', url: fake.url, auth: { type: 'api-key', key: ref('STEDI_KEY') } },
      deps(),
    );
  });
  after(async () => {
    await connector.close();
    await fake.close();
  });
  const send = (budgetMs = 5_000) => connector.send(inquiry(), { signal: AbortSignal.timeout(budgetMs) });

  test('POSTs {"x12": 270} with the bare key and returns the 271 byte for byte; the request id is reported', async () => {
    fake.setMode('ok');
    const ids: string[] = [];
    const x12_270 = inquiry();
    const x12 = await connector.send(x12_270, { signal: never(), onExchangeId: (id) => ids.push(id) });
    const seen = fake.requests.at(-1)!;
    assert.deepEqual(seen.problems, []);
    assert.equal(seen.headers.authorization, SECRETS.STEDI_KEY);
    assert.equal(seen.fields.x12, x12_270);
    assert.equal(x12, fake.answers.at(-1));
    assert.deepEqual(ids, [fake.lastRequestId]);
    assert.equal(connector.name, 'x12-json');
    assert.equal(parse271(x12, { traceNumber: TRACE }).kind, '271');
  });

  test('999, TA1 and a foreign 271 come back as X12 for the caller to judge', async () => {
    for (const mode of ['999', 'ta1', 'foreign-trace'] as const) {
      fake.setMode(mode);
      assert.equal(await send(), fake.answers.at(-1), mode);
    }
  });

  test('the fake notices an inquiry for another payer and a miscounted envelope (it answers a 999)', async () => {
    fake.setMode('ok');
    for (const [x12_270, problem] of [
      [inquiry(undefined, undefined, 'OTHERPAYER'), 'NM109 of loop 2100A is not the payer id'],
      [miscounted270(), 'SE01 does not count the segments'],
    ] as const) {
      const outcome = parse271(await connector.send(x12_270, { signal: never() }));
      assert.equal(outcome.kind, 'rejected', problem);
      assert.deepEqual(fake.requests.at(-1)!.problems, [problem]);
    }
  });

  const faults: [X12JsonFault | TransportFault, new (...a: never[]) => Error, RegExp, number?][] = [
    [
      '400',
      PermanentPayerError,
      /refused the inquiry \(HTTP 400\): Subscriber \[value\] born \[date\] .*\[id\]/,
    ],
    ['422', PermanentPayerError, /refused the inquiry \(HTTP 422\)/],
    ['401', PayerAuthenticationError, /credentials \(HTTP 401\)/],
    ['403', PayerAuthenticationError, /credentials \(HTTP 403\)/],
    ['429-retry-after', ConnectionThrottledError, /HTTP 429/, 3_000],
    ['503-retry-after', TransientPayerError, /HTTP 503/, 7_000],
    ['html', TransientPayerError, /HTML page/],
    ['broken-body', TransientPayerError, /malformed JSON/],
    ['no-x12-field', TransientPayerError, /no x12 string/],
    ['non-x12', TransientPayerError, /payload is not X12/],
  ];
  for (const [mode, kind, pattern, retryAfterMs] of faults) {
    test(`fault ${mode} → ${kind.name}`, async () => {
      fake.setMode(mode);
      const err = await failsWith(send(), kind, pattern);
      assert.deepEqual(fake.requests.at(-1)!.problems, [], 'the fake saw a valid request');
      if (retryAfterMs) assert.equal((err as TransientPayerError).retryAfterMs, retryAfterMs);
    });
  }

  test('a 5xx is transient and the next call succeeds', async () => {
    fake.setMode('5xx-then-ok');
    await failsWith(send(), TransientPayerError, /HTTP 502/);
    assert.equal(await send(), fake.answers.at(-1));
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

  test('a wrong key: PayerAuthenticationError, the key never in the message', async () => {
    fake.setMode('ok');
    const c = createX12JsonConnector(
      { type: 'x12-json', url: fake.url, auth: { type: 'api-key', key: ref('OPTUM_SECRET') } },
      deps(),
    );
    try {
      await failsWith(c.send(inquiry(), { signal: never() }), PayerAuthenticationError, /HTTP 401/);
    } finally {
      await c.close();
    }
  });
});

describe('x12-json with OAuth2 client credentials', () => {
  let fake: X12JsonFake;
  before(async () => {
    fake = await startX12JsonFake({
      payerId: PAYER_ID,
      auth: {
        type: 'oauth2',
        clientId: SECRETS.OPTUM_ID!,
        clientSecret: SECRETS.OPTUM_SECRET!,
        scope: 'eligibility',
        expiresIn: 120,
        tokenDelayMs: 50,
      },
    });
  });
  after(() => fake.close());
  const open: X12JsonGatewayConnector[] = [];
  after(() => Promise.all(open.map((c) => c.close())));
  const connect = (over: Partial<ConnectorDeps> = {}, secret = ref('OPTUM_SECRET')) => {
    const c = createX12JsonConnector(
      {
        type: 'x12-json',
        url: fake.url,
        auth: {
          type: 'oauth2-client-credentials',
          tokenUrl: fake.tokenUrl,
          clientId: ref('OPTUM_ID'),
          clientSecret: secret,
          scope: 'eligibility',
        },
      },
      deps(over),
    );
    open.push(c);
    return c;
  };
  const reset = () => {
    fake.setMode('ok');
    fake.setTokenMode('ok');
    fake.tokenRequests.length = 0;
  };

  test('50 concurrent checks on a cold cache make exactly one token request, then reuse it', async () => {
    reset();
    const c = connect();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => c.send(inquiry(), { signal: never() })),
    );
    assert.equal(answers.length, 50);
    assert.equal(fake.tokenRequests.length, 1);
    assert.deepEqual(fake.tokenRequests[0]!.problems, [], 'a valid form-encoded client-credentials request');
    for (let i = 0; i < 5; i++) await c.send(inquiry(), { signal: never() });
    assert.equal(fake.tokenRequests.length, 1);
    assert.equal(c.tokenRequests, 1);
    assert.match(String(fake.requests.at(-1)!.headers.authorization), /^Bearer \S+$/);
    assert.deepEqual(fake.requests.at(-1)!.problems, []);
  });

  test('the token is renewed shortly before it expires (60 s early, or 10% of a short lifetime)', async () => {
    reset();
    let clock = Date.parse('2026-11-24T10:00:00Z');
    const c = connect({ now: () => new Date(clock) });
    const at = async (seconds: number) => {
      clock = Date.parse('2026-11-24T10:00:00Z') + seconds * 1000;
      await c.send(inquiry(), { signal: never() });
      return fake.tokenRequests.length;
    };
    // expires_in 120 s: renewed from 120 - min(60, 12) = 108 s on.
    assert.equal(await at(0), 1);
    assert.equal(await at(100), 1);
    assert.equal(await at(107.9), 1);
    assert.equal(await at(108.5), 2);
    assert.equal(await at(200), 2);
  });

  test('a 401 drops the token and tries once more with a fresh one', async () => {
    reset();
    const c = connect();
    await c.send(inquiry(), { signal: never() });
    const apiCalls = fake.requests.length;
    fake.revokeTokens();
    const x12 = await c.send(inquiry(), { signal: never() });
    assert.equal(x12, fake.answers.at(-1));
    assert.equal(fake.tokenRequests.length, 2);
    assert.equal(fake.requests.length, apiCalls + 2, 'one refused call, one retried call');
  });

  test('a second 401 is a PayerAuthenticationError after exactly one refetch', async () => {
    reset();
    const c = connect();
    await c.send(inquiry(), { signal: never() });
    fake.setMode('401');
    const apiCalls = fake.requests.length;
    await failsWith(c.send(inquiry(), { signal: never() }), PayerAuthenticationError, /HTTP 401/);
    assert.equal(fake.tokenRequests.length, 2);
    assert.equal(fake.requests.length, apiCalls + 2);
  });

  const tokenFaults: ['401' | '400' | '500', new (...a: never[]) => Error, RegExp][] = [
    [
      '401',
      PayerAuthenticationError,
      /token endpoint refused our client credentials \(HTTP 401 invalid_client\)/,
    ],
    [
      '400',
      PayerAuthenticationError,
      /token endpoint refused our client credentials \(HTTP 400 invalid_request\)/,
    ],
    ['500', TransientPayerError, /token endpoint answered HTTP 500/],
  ];
  for (const [mode, kind, pattern] of tokenFaults) {
    test(`token endpoint ${mode} → ${kind.name}; the next call asks again`, async () => {
      reset();
      fake.setTokenMode(mode);
      const c = connect();
      await failsWith(c.send(inquiry(), { signal: never() }), kind, pattern);
      fake.setTokenMode('ok');
      assert.equal(await c.send(inquiry(), { signal: never() }), fake.answers.at(-1));
      assert.equal(fake.tokenRequests.length, 2);
    });
  }

  test('a wrong client secret: PayerAuthenticationError without the secret in the message', async () => {
    reset();
    const c = connect({}, ref('STEDI_KEY'));
    await failsWith(c.send(inquiry(), { signal: never() }), PayerAuthenticationError, /client credentials/);
    assert.match(fake.tokenRequests[0]!.problems.join(), /client credentials are wrong/);
  });

  test('a token endpoint that hangs fails the check within its time budget', async () => {
    reset();
    fake.setTokenMode('slow');
    const c = connect();
    const started = performance.now();
    await failsWith(
      c.send(inquiry(), { signal: AbortSignal.timeout(BUDGET_MS) }),
      TransientPayerError,
      /time budget/,
    );
    assert.ok(performance.now() - started < BUDGET_MS + SLACK_MS, 'within the budget');
  });
});

describe('x12-json answers that declare a charset other than UTF-8', () => {
  const answer271 = 'ISA*00*          *00*          ~NM1*PR*2*SEÑOR SALUD*****PI*FAKEPAYER~IEA*1*1~';
  const run = async (answerCharset: string) => {
    const fake = await startX12JsonFake({
      payerId: PAYER_ID,
      auth: { type: 'api-key', key: SECRETS.STEDI_KEY! },
      fixedAnswer: answer271,
      answerCharset,
    });
    const c = createX12JsonConnector(
      { type: 'x12-json', url: fake.url, auth: { type: 'api-key', key: ref('STEDI_KEY') } },
      deps(),
    );
    try {
      return await c.send(inquiry(), { signal: never() });
    } finally {
      await c.close();
      await fake.close();
    }
  };

  test('an ISO-8859-1 JSON answer is read as ISO-8859-1', async () => {
    assert.equal(await run('ISO-8859-1'), answer271);
  });

  test('an unknown charset fails as transient, naming it', async () => {
    await failsWith(run('x-klingon'), TransientPayerError, /unknown character set \(x-klingon\)/);
  });
});
