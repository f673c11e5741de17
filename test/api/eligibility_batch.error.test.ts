/** POST /api/eligibility/batch and GET /api/eligibility/batch/{id}: every 4xx they answer, with the envelope. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = sandboxRequest(member('SBX1000001'));
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { batchMaxPendingChecks: 50 },
  });
});
after(() => svc.stop());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  client(svc.url, svc.apiKey).post('/api/eligibility/batch', body, headers);

test('a malformed batch answers 400 ValidationException saying what is wrong', async () => {
  const cases: [unknown, RegExp][] = [
    [[JANE], /body must be a JSON object/],
    [{ checks: [] }, /checks must be an array of 1 to 10000/],
    [{ checks: JANE }, /checks must be an array/],
    [{ checks: Array.from({ length: 10_001 }, () => ({})) }, /1 to 10000/],
    [{ checks: [JANE], nmae: 'typo' }, /unknown field "nmae"/],
    [{ checks: [JANE], name: '' }, /name must be a string of 1 to 200/],
    [{ checks: [JANE], atomic: 'yes' }, /atomic must be true or false/],
    [
      { checks: [{}, { tradingPartnerServiceId: 'SANDBOX' }] },
      /No valid check in the batch\. checks\[0\]: Invalid request/,
    ],
    ['{"checks": [', /JSON|body/i],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message']);
    assert.equal(res.body.code, 'ValidationException');
    assert.match(res.body.message, message);
  }
});

test('an invalid Idempotency-Key is 400; a reused one with another body is 422', async () => {
  assert.equal((await post({ checks: [JANE] }, { 'idempotency-key': 'a b' })).status, 400);
  assert.equal((await post({ checks: [JANE] }, { 'idempotency-key': 'k-422' })).status, 202);
  const other = await post({ checks: [JANE, JANE] }, { 'idempotency-key': 'k-422' });
  assert.equal(other.status, 422);
  assert.equal(other.body.code, 'ValidationException');
});

test('more batch checks in progress than BATCH_MAX_PENDING_CHECKS: 429 with Retry-After, nothing created', async () => {
  const { rows: before } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks',
  );
  const res = await post({ checks: Array.from({ length: 60 }, () => JANE) });
  assert.equal(res.status, 429);
  assert.equal(res.body.code, 'ThrottlingException');
  assert.match(res.body.message, /Too many batch checks in progress: \d+ of at most 50/);
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
  const { rows: now } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks',
  );
  assert.equal(now[0]?.n, before[0]?.n);
});

test('a body over the batch limit (16 MB) answers 413 naming that limit', async () => {
  const res = await post(`{"checks":[${'"x",'.repeat(4_300_000)}"x"]}`);
  assert.equal(res.status, 413);
  assert.equal(res.body.code, 'ValidationException');
  assert.match(res.body.message, /16777216 bytes/);
});

test('GET: an unknown or malformed id is 404; a bad filter is 400', async () => {
  const c = client(svc.url, svc.apiKey);
  const missing = await c.get('/api/eligibility/batch/01900000-0000-7000-8000-000000000000');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'ResourceNotFoundException');
  assert.equal((await c.get('/api/eligibility/batch/not-an-id')).status, 404);
  const { body } = await post({ checks: [JANE] });
  for (const query of ['status=DONE', 'limit=0', 'limit=5000', 'after=x']) {
    const res = await c.get(`/api/eligibility/batch/${body.id}?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.code, 'ValidationException');
  }
});
