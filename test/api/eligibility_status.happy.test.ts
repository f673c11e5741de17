import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { POLL_AFTER_SECONDS } from '../../src/api/routes/eligibility_status.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

// The spec's FAILED fields, plus the verdict every finished check carries (an addition, issue 16).
const FAILED_KEYS = ['errors', 'id', 'payer', 'status', 'subscriber', 'tradingPartnerServiceId', 'verdict'];

test('COMPLETED carries the full result', async () => {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post('/api/eligibility', sandboxRequest(member('SBX1000001')));
  const result = await waitForResult(c, body.id);
  assert.equal(result.status, 'COMPLETED');
  assert.equal(result.id, body.id);
  for (const field of [
    'provider',
    'payer',
    'subscriber',
    'dependents',
    'planInformation',
    'planDateInformation',
    'planActive',
    'benefits',
    'benefitsInformation',
    'confidence',
    'meta',
    'subscriberTraceNumbers',
    'x12',
    'tradingPartnerServiceId',
  ]) {
    assert.ok(field in result, `COMPLETED result lacks ${field}`);
  }
  assert.equal(result.errors, undefined);
  const again = await c.get(`/api/eligibility/${body.id}/status`);
  assert.equal(again.headers.get('retry-after'), null, 'a finished check has nothing to wait for');
  assert.match(result.x12, /^ISA/);
  assert.equal(
    (await c.get(`/api/eligibility/${body.id}/status`)).headers.get('content-type'),
    'application/json; charset=utf-8',
  );
});

test('FAILED carries exactly id, status, payer, subscriber, tradingPartnerServiceId, errors and the verdict', async () => {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post(
    '/api/eligibility',
    sandboxRequest({ memberId: 'SBX9999999', firstName: 'NO', lastName: 'ONE', dateOfBirth: '19800101' }),
  );
  const result = await waitForResult(c, body.id);
  assert.equal(result.status, 'FAILED');
  assert.deepEqual(Object.keys(result).sort(), FAILED_KEYS);
  assert.deepEqual(Object.keys(result.payer).sort(), ['payerId', 'payerName']);
  assert.deepEqual(result.subscriber, {
    memberId: 'SBX9999999',
    firstName: 'NO',
    lastName: 'ONE',
    dateOfBirth: '19800101',
  });
});

test('an unknown payer FAILS with SH01 and its spec description and follow-up', async () => {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post('/api/eligibility', {
    ...sandboxRequest(member('SBX1000001')),
    tradingPartnerServiceId: 'NOPAYER',
  });
  const result = await waitForResult(c, body.id);
  assert.equal(result.status, 'FAILED');
  assert.deepEqual(Object.keys(result).sort(), FAILED_KEYS);
  assert.equal(result.errors[0].code, 'SH01');
  assert.equal(result.errors[0].description, 'Payer not supported');
  assert.equal(result.errors[0].followupAction, 'Resubmission Not Allowed');
  assert.equal(result.tradingPartnerServiceId, 'NOPAYER');
});

test('the status body is stable: the same bytes on every read', async () => {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post('/api/eligibility', sandboxRequest(member('SBX1000002')));
  await waitForResult(c, body.id);
  const a = await fetch(`${svc.url}/api/eligibility/${body.id}/status`, {
    headers: { authorization: `Key ${svc.apiKey}` },
  }).then((r) => r.text());
  const b = await fetch(`${svc.url}/api/eligibility/${body.id}/status`, {
    headers: { authorization: `Key ${svc.apiKey}` },
  }).then((r) => r.text());
  assert.equal(a, b);
});

test('an IN_PROGRESS answer carries Retry-After in whole seconds, so clients poll at a sensible pace', async () => {
  // No worker in this service: the check stays IN_PROGRESS for as long as the test looks at it.
  const idle = await startTestService({ roles: { api: true, worker: false } });
  try {
    const c = client(idle.url, idle.apiKey);
    const { body } = await c.post('/api/eligibility', sandboxRequest(member('SBX1000001')));
    const res = await c.get(`/api/eligibility/${body.id}/status`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: body.id, status: 'IN_PROGRESS' });
    assert.equal(res.headers.get('retry-after'), String(POLL_AFTER_SECONDS));
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  } finally {
    await idle.stop();
  }
});
