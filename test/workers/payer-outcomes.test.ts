/**
 * What payer answers come to, end to end through the worker and the store: a 271 for another inquiry is
 * never attached; a 999 or TA1 fails the check at once naming what to correct; refused credentials open the
 * breaker at once, cost no attempt and show in /readyz; every call logs one line with ids only; the
 * entry's envelope ids, timeout and concurrency are used; aliases are stored under the canonical id.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_CATALOG } from '../../src/checks/error-catalog.ts';
import {
  PayerAuthenticationError,
  type PayerCallOptions,
  type PayerConnector,
  type PayerEntry,
  TransientPayerError,
} from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { readSegments } from '../../src/x12/segments.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const sandbox = createSandboxConnector({ latencyMs: 0 });
const ISA =
  'ISA*00*          *00*          *ZZ*PAYER          *ZZ*ELIGSVC        *260304*0907*^*00501*000000777*0*P*:~';

/** A connector made of one function, counting its calls and keeping the 270s it was sent. */
function connector(name: string, answer: (x12: string, o: PayerCallOptions) => Promise<string>) {
  const c = {
    name,
    calls: 0,
    inFlight: 0,
    maxInFlight: 0,
    received: [] as string[],
    async send(x12: string, o: PayerCallOptions) {
      c.calls++;
      c.received.push(x12);
      c.maxInFlight = Math.max(c.maxInFlight, ++c.inFlight);
      try {
        return await answer(x12, o);
      } finally {
        c.inFlight--;
      }
    },
  } satisfies PayerConnector & Record<string, unknown>;
  return c;
}

/** The sandbox's answer with our trace replaced: a 271 that answers some other inquiry. */
const otherInquiry = connector('mismatch', async (x12, o) => {
  const trace = /TRN\*1\*([^*~]+)/.exec(x12)![1]!;
  return (await sandbox.send(x12, o)).replaceAll(trace, 'SOMEONEELSESTRACE');
});
const rejected999 = connector('ack999', async () =>
  [
    ISA,
    'GS*FA*PAYER*ELIGSVC*20260304*0907*777*X*005010X231A1~',
    'ST*999*0001*005010X231A1~',
    'AK1*HS*123*005010X279A1~',
    'AK2*270*0001*005010X279A1~',
    'IK3*NM1*8*2100C*8~',
    'IK4*9*67*6*SBX1000001~',
    'IK5*R*5~',
    'AK9*R*1*1*0~',
    'SE*8*0001~',
    'GE*1*777~',
    'IEA*1*000000777~',
  ].join('\n'),
);
const rejectedTa1 = connector(
  'ta1',
  async () => `${ISA}\nTA1*000000123*260304*0907*R*006~\nIEA*0*000000777~`,
);
const locked = connector('core-test', async () => {
  throw new PayerAuthenticationError('gateway answered HTTP 401');
});
const exchange = connector('x12-json', async (x12, o) => {
  o.onExchangeId?.('gw-exchange-42');
  return sandbox.send(x12, o);
});
const oddExchangeId = connector('odd-id', async (x12, o) => {
  o.onExchangeId?.('JANE DOE 19800115 <b>');
  return sandbox.send(x12, o);
});
const slow = connector('slow', async (_x12, o) => {
  await new Promise((_, reject) =>
    o.signal.addEventListener('abort', () => reject(new TransientPayerError('aborted')), { once: true }),
  );
  return '';
});

const entry = (id: string, c: PayerConnector, extra: Partial<PayerEntry> = {}): PayerEntry => ({
  tradingPartnerServiceId: id,
  payerName: `${id} Health`,
  payerId: id,
  connector: c,
  ...extra,
});
const payers: PayerEntry[] = [
  entry('TRACEGW', otherInquiry),
  entry('REJECT999', rejected999),
  entry('REJECTTA1', rejectedTa1),
  entry('LOCKED', locked, { connectorType: 'caqh-core-soap' }),
  entry('EXCHANGE', exchange, {
    payerId: 'EXCH-PAYER',
    aliases: ['EXCH-OLD', '99999'],
    connectorType: 'x12-json',
    envelope: { senderQualifier: '30', receiverId: 'EXCHRCV', receiverQualifier: '01' },
  }),
  entry('SLOWGW', slow, { timeoutMs: 300, concurrency: 1 }),
  entry('ODDID', oddExchangeId),
];

let svc: TestService;
before(async () => {
  svc = await startTestService({
    payers,
    config: { x12SenderId: 'MYCLINIC01', payerOutageWaitMs: 1_500, payerTimeoutMs: 4_000, leaseMs: 10_000 },
  });
});
after(() => svc.stop());

async function submit(tradingPartnerServiceId: string) {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', {
    ...sandboxRequest(JANE),
    tradingPartnerServiceId,
  });
  assert.equal(res.status, 202);
  return res.body.id as string;
}

const result = (id: string) => waitForResult(client(svc.url, svc.apiKey), id);

async function attempts(id: string): Promise<number> {
  const { rows } = await svc.service.store.db.query<{ attempts: number }>(
    'SELECT attempts FROM checks WHERE id = $1',
    [id],
  );
  return rows[0]!.attempts;
}

/** The log lines of one check's payer calls. */
function callLines(id: string): Record<string, unknown>[] {
  return svc.logs.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'payer call' && l.checkId === id);
}

function assertNoPhiInLogs() {
  for (const value of Object.values(JANE)) assert.ok(!svc.logs.text.includes(value), 'PHI in the logs');
  assert.ok(!svc.logs.text.includes('ISA*'), 'X12 in the logs');
}

test('a 271 that answers another inquiry is never attached: retried, then SH02', async () => {
  const id = await submit('TRACEGW');
  const body = await result(id);
  assert.equal(body.status, 'FAILED');
  assert.equal(body.errors[0].code, 'SH02');
  assert.match(body.errors[0].possibleResolutions, /does not echo this check's trace/);
  assert.equal(body.benefits, undefined, 'nothing of the other answer is kept');
  assert.equal(await attempts(id), 3, 'each answer cost an attempt, like any unusable answer');
  const lines = callLines(id);
  assert.equal(lines.length, 3);
  for (const l of lines) assert.equal(l.outcome, 'trace-mismatch');
  assertNoPhiInLogs();
});

test('a 999 fails the check at once, naming the segment and element to correct', async () => {
  const id = await submit('REJECT999');
  const body = await result(id);
  assert.equal(body.status, 'FAILED');
  assert.equal(await attempts(id), 1, 'no retry');
  assert.equal(rejected999.calls, 1);
  const [error] = body.errors;
  assert.equal(error.code, 'SH04');
  assert.equal(error.followupAction, 'Please Correct and Resubmit');
  assert.equal(error.field, 'subscriber.memberId');
  assert.equal(error.location, 'loop 2100C, segment NM1, element NM109');
  assert.match(error.possibleResolutions, /999 implementation acknowledgment R/);
  assert.match(error.possibleResolutions, /Invalid character in data element\. Correct subscriber\.memberId/);
  assert.equal(body.payer.payerId, 'REJECT999');
  assert.ok(!JSON.stringify(body.errors).includes('SBX1000001'), 'the bad value (IK404) is not echoed');
  assert.equal(callLines(id)[0]!.outcome, 'rejected');
});

test('a TA1 fails the check at once, naming the ISA element of its note code', async () => {
  const id = await submit('REJECTTA1');
  const body = await result(id);
  assert.equal(await attempts(id), 1);
  const [error] = body.errors;
  assert.equal(error.code, 'SH04');
  assert.equal(error.location, 'segment ISA, element ISA06');
  assert.match(error.possibleResolutions, /note code 006/);
  assert.match(error.possibleResolutions, /check X12_SENDER_ID \(or the connector’s senderId\)/);
});

test('refused credentials open the breaker at once: no attempt spent, /readyz says so, SH02 after the outage window', async () => {
  const first = await submit('LOCKED');
  await until(() => callLines(first).length === 1, 5_000);
  // Submitted after the refusal: it waits on the open breaker without the payer being asked.
  const ids = [first, await submit('LOCKED')];
  const bodies = await Promise.all(ids.map(result));
  for (const body of bodies) {
    assert.equal(body.status, 'FAILED');
    assert.equal(body.errors[0].code, 'SH02');
    assert.match(body.errors[0].possibleResolutions, /it refuses our credentials/);
  }
  assert.equal(locked.calls, 1, 'the breaker opened after the first refusal; nobody tried again');
  for (const id of ids) assert.ok((await attempts(id)) <= 1, 'waiting cost no attempts');

  const ready = await fetch(`${svc.url}/readyz`).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }));
  assert.equal(ready.status, 200, 'the instance still serves; the detail names the payer');
  assert.deepEqual(
    ready.body.payers.map((p: { payer: string; problem: string }) => [p.payer, p.problem]),
    [['LOCKED', 'authentication failed']],
  );
  const metrics = await fetch(`${svc.url}/metrics`).then((r) => r.text());
  assert.match(
    metrics,
    /elig_payer_auth_failures_total\{payer="LOCKED",connector="caqh-core-soap",connection="caqh-core-soap"\} 1/,
  );
  assert.match(metrics, /elig_payer_circuit_state\{payer="LOCKED",connector="caqh-core-soap"\} 2/);
  assert.match(metrics, /elig_checks_deferred_total\{payer="LOCKED",reason="auth-failed"\} [1-9]/);
  const warnings = svc.logs.lines.filter(
    (l) => l.includes('refused the service') && l.includes('"level":40'),
  );
  assert.equal(warnings.length, 1);
  assert.ok(!svc.logs.text.includes('HTTP 401'), "the gateway's message is not repeated");
});

test('exchange id, trace numbers and envelope ids from config and entry; one log line per call', async () => {
  const id = await submit('EXCHANGE');
  const body = await result(id);
  assert.equal(body.status, 'COMPLETED');
  const trace = id.replaceAll('-', '');
  assert.deepEqual(body.meta, {
    applicationMode: 'production',
    senderId: 'MYCLINIC01',
    submitterId: 'MYCLINIC01',
    traceId: 'gw-exchange-42',
    outboundTraceId: trace,
  });
  assert.ok(
    body.subscriberTraceNumbers.some(
      (t: { referenceIdentification: string }) => t.referenceIdentification === trace,
    ),
  );
  const { segments } = readSegments(exchange.received.at(-1)!);
  const isa = segments.find((s) => s.id === 'ISA')!.elements.map((e) => e.trim());
  assert.deepEqual(isa.slice(5, 9), ['30', 'MYCLINIC01', '01', 'EXCHRCV']);
  assert.deepEqual(segments.find((s) => s.id === 'GS')!.elements.slice(2, 4), ['MYCLINIC01', 'EXCHRCV']);
  const payerName = segments.find((s) => s.id === 'NM1' && s.elements[1] === 'PR')!;
  assert.equal(payerName.elements[9], 'EXCH-PAYER', 'NM109 of 2100A is the payerId');
  const [line, ...more] = callLines(id);
  assert.equal(more.length, 0);
  assert.deepEqual(
    { ...line, latencyMs: typeof line!.latencyMs, time: undefined, pid: undefined, hostname: undefined },
    {
      level: 30,
      service: 'eligibility',
      component: 'check-worker',
      checkId: id,
      payer: 'EXCHANGE',
      connector: 'x12-json',
      outcome: 'ok',
      latencyMs: 'number',
      exchangeId: 'gw-exchange-42',
      traceId: trace,
      msg: 'payer call',
      time: undefined,
      pid: undefined,
      hostname: undefined,
    },
  );
  assertNoPhiInLogs();
});

test('an exchange id that does not look like an id is dropped, not logged or answered', async () => {
  const id = await submit('ODDID');
  const body = await result(id);
  assert.equal(body.status, 'COMPLETED');
  assert.equal(body.meta.traceId, id, 'the check id, as without an exchange id');
  assert.equal(callLines(id)[0]!.exchangeId, undefined);
  assertNoPhiInLogs();
});

test('a check submitted under an alias is stored and answered under the canonical id', async () => {
  const id = await submit('EXCH-OLD');
  const body = await result(id);
  assert.equal(body.status, 'COMPLETED');
  assert.equal(body.tradingPartnerServiceId, 'EXCHANGE');
  const { rows } = await svc.service.store.db.query<{
    trading_partner_service_id: string;
    request: { tradingPartnerServiceId: string };
  }>('SELECT trading_partner_service_id, request FROM checks WHERE id = $1', [id]);
  assert.equal(rows[0]!.trading_partner_service_id, 'EXCHANGE');
  assert.equal(rows[0]!.request.tradingPartnerServiceId, 'EXCHANGE');
  const metrics = await fetch(`${svc.url}/metrics`).then((r) => r.text());
  assert.doesNotMatch(metrics, /payer="EXCH-OLD"/);
});

test('an id outside the directory still fails SH01, its payer naming the id as submitted', async () => {
  const body = await result(await submit('NOT-A-PAYER'));
  assert.equal(body.errors[0].code, 'SH01');
  assert.deepEqual(body.payer, { payerId: 'NOT-A-PAYER' });
  assert.equal(body.tradingPartnerServiceId, 'NOT-A-PAYER');
  // Nothing in the directory is near it: the table's resolutions alone.
  assert.equal(body.errors[0].possibleResolutions, ERROR_CATALOG.get('SH01')!.possibleResolutions);
});

test('SH01 for a mistyped id names the closest payers of the directory, by id and name', async () => {
  const body = await result(await submit('EXCHANGEE'));
  assert.equal(body.errors[0].code, 'SH01');
  assert.equal(
    body.errors[0].possibleResolutions,
    `${ERROR_CATALOG.get('SH01')!.possibleResolutions}\nPayers with a similar id or name: EXCHANGE (EXCHANGE Health).`,
  );
  const swapped = await result(await submit('99909'));
  assert.match(swapped.errors[0].possibleResolutions, /similar id or name: EXCHANGE \(EXCHANGE Health\)\.$/);
});

test("a payer's own timeout and concurrency replace PAYER_TIMEOUT_MS and PAYER_CONCURRENCY", async () => {
  const ids = await Promise.all([submit('SLOWGW'), submit('SLOWGW'), submit('SLOWGW')]);
  await until(() => ids.every((id) => callLines(id).length >= 1), 10_000);
  for (const id of ids) {
    const [line] = callLines(id);
    assert.equal(line!.outcome, 'timeout');
    assert.ok((line!.latencyMs as number) < 2_000, `timed out after ${line!.latencyMs} ms, not 4 s`);
  }
  assert.equal(slow.maxInFlight, 1, 'one call at a time to this payer');
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
