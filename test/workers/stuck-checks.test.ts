/**
 * No accepted check stays IN_PROGRESS forever: an error that is neither a payer outcome nor a payer
 * failure is retried a bounded number of times and then FAILS with SH03, with one completion event; a
 * check whose workers keep dying on it is failed without another try. Logs carry ids and error classes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import type { PayerConnector, PayerEntry } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { LOST_ATTEMPT_ALLOWANCE } from '../../src/workers/check-decision.ts';
import { CheckWorker } from '../../src/workers/check-worker.ts';
import {
  client,
  LogCapture,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const sandbox = createSandboxConnector({ latencyMs: 0 });
let payerCalls = 0;
const counting: PayerConnector = {
  name: 'counting',
  send(x12, options) {
    payerCalls++;
    return sandbox.send(x12, options);
  },
};
const payers: PayerEntry[] = [
  {
    tradingPartnerServiceId: 'SANDBOX',
    payerName: 'Sandbox Health Plan',
    payerId: 'SANDBOX',
    connector: counting,
  },
  // A directory entry the 270 cannot carry (an element delimiter in the name): a configuration bug.
  { tradingPartnerServiceId: 'BROKEN', payerName: 'Broken*Plan', payerId: 'BROKEN', connector: counting },
];
const MAX_ATTEMPTS = 3;

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false }, payers });
  // An event row is written only for an organization with a webhook URL; nothing delivers it here.
  await svc.service.store.db.query('UPDATE organizations SET webhook_url = $1 WHERE id = $2', [
    'https://hooks.example.test/eligibility',
    svc.organizationId,
  ]);
});
after(() => svc.stop());

async function runWorker<T>(logs: LogCapture, fn: () => Promise<T>): Promise<T> {
  const worker = new CheckWorker({
    db: svc.service.store.db,
    log: createLogger('info', logs),
    workerId: `w-${Math.random().toString(36).slice(2, 8)}`,
    resolvePayer: (tp) => payers.find((p) => p.tradingPartnerServiceId === tp),
    concurrency: 4,
    pollMs: 50,
    leaseMs: 5000,
    payerTimeoutMs: 2000,
    maxAttempts: MAX_ATTEMPTS,
    retryBaseMs: 10,
    senderId: 'TEST',
  });
  await worker.start();
  try {
    return await fn();
  } finally {
    await worker.stop();
  }
}

async function submit(extra: object = {}, tp = 'SANDBOX'): Promise<string> {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', {
    ...sandboxRequest(JANE, extra),
    tradingPartnerServiceId: tp,
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.id;
}

async function facts(id: string) {
  const db = svc.service.store.db;
  const { rows } = await db.query<{ attempts: number; outcome_code: string; events: number }>(
    `SELECT c.attempts, c.outcome_code, (SELECT count(*)::int FROM webhook_events e WHERE e.check_id = c.id) AS events
       FROM checks c WHERE c.id = $1`,
    [id],
  );
  return rows[0]!;
}

test('a request the 270 builder refuses fails with SH03 after the attempt budget, with one event', async () => {
  // A check accepted before validation knew this domain (or by a bug in it): stored, then unbuildable.
  const id = await submit({ encounter: { dateOfService: '20261124' } });
  await svc.service.store.db.query(
    `UPDATE checks SET request = jsonb_set(request, '{encounter,dateOfService}', '"18991231"') WHERE id = $1`,
    [id],
  );
  const logs = new LogCapture();
  const result = await runWorker(logs, () => waitForResult(client(svc.url, svc.apiKey), id));
  assert.equal(result.status, 'FAILED');
  assert.equal(result.errors.length, 1);
  const [error] = result.errors;
  assert.equal(error.code, 'SH03');
  assert.equal(error.description, 'Check could not be processed');
  assert.equal(error.followupAction, 'Resubmission Allowed');
  assert.match(error.possibleResolutions, /failed 3 times: Cannot write encounter\.dateOfService into X12/);
  assert.doesNotMatch(JSON.stringify(result.errors), /18991231/, 'the value itself is never echoed');
  assert.deepEqual(await facts(id), {
    attempts: MAX_ATTEMPTS,
    outcome_code: 'SH03:X12BuildError',
    events: 1,
  });
  const failures = logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'processing a check failed');
  assert.equal(failures.length, MAX_ATTEMPTS);
  for (const line of failures)
    assert.deepEqual(Object.keys(line).sort(), [
      'attempt',
      'checkId',
      'errorClass',
      'level',
      'msg',
      'service',
      'time',
    ]);
  assert.doesNotMatch(logs.text, /18991231|SBX1000001|JANE|19800115/);
});

test('a payer directory entry the 270 cannot carry fails its checks with SH03, not forever', async () => {
  const id = await submit({}, 'BROKEN');
  const result = await runWorker(new LogCapture(), () => waitForResult(client(svc.url, svc.apiKey), id));
  assert.equal(result.errors[0].code, 'SH03');
  assert.match(result.errors[0].possibleResolutions, /payer\.name/);
  assert.equal((await facts(id)).events, 1);
});

test('a check whose workers kept dying on it is failed with SH03 without calling the payer again', async () => {
  const id = await submit();
  // Every earlier claim ran out its lease without recording anything (kill -9 mid-call, each time).
  await svc.service.store.db.query('UPDATE checks SET attempts = $2 WHERE id = $1', [
    id,
    MAX_ATTEMPTS + LOST_ATTEMPT_ALLOWANCE,
  ]);
  payerCalls = 0;
  const result = await runWorker(new LogCapture(), () => waitForResult(client(svc.url, svc.apiKey), id));
  assert.equal(result.errors[0].code, 'SH03');
  assert.match(result.errors[0].possibleResolutions, /started 5 times and never finished/);
  assert.equal(payerCalls, 0);
  assert.deepEqual(await facts(id), { attempts: 6, outcome_code: 'SH03:LOST', events: 1 });
});

test('within the allowance a check that lost attempts is still tried and completes', async () => {
  const id = await submit();
  await svc.service.store.db.query('UPDATE checks SET attempts = $2 WHERE id = $1', [
    id,
    MAX_ATTEMPTS + LOST_ATTEMPT_ALLOWANCE - 1,
  ]);
  const result = await runWorker(new LogCapture(), () => waitForResult(client(svc.url, svc.apiKey), id));
  assert.equal(result.status, 'COMPLETED');
});
