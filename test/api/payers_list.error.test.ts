/** GET /api/payers: every 4xx it can answer, each in the one envelope, none echoing the input. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

test('an unknown query parameter is refused, not ignored', async () => {
  const res = await client(svc.url, svc.apiKey).get('/api/payers?query=acme');
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { code: 'ValidationException', message: 'Unknown query parameter: query.' });
  const odd = await client(svc.url, svc.apiKey).get('/api/payers?%3Cscript%3E=1');
  assert.equal(odd.status, 400);
  assert.doesNotMatch(odd.body.message, /script/);
});

test('q repeated or longer than 100 characters is refused', async () => {
  const c = client(svc.url, svc.apiKey);
  for (const query of ['q=a&q=b', `q=${'x'.repeat(101)}`]) {
    const res = await c.get(`/api/payers?${query}`);
    assert.equal(res.status, 400, query);
    assert.deepEqual(res.body, {
      code: 'ValidationException',
      message: 'q must be one string of at most 100 characters.',
    });
  }
  assert.equal((await c.get(`/api/payers?q=${'x'.repeat(100)}`)).status, 200);
});

test('limit must be one whole number from 1 to 1000', async () => {
  const c = client(svc.url, svc.apiKey);
  for (const query of [
    'limit=0',
    'limit=1001',
    'limit=-1',
    'limit=2.5',
    'limit=ten',
    'limit=',
    'limit=1&limit=2',
  ]) {
    const res = await c.get(`/api/payers?${query}`);
    assert.equal(res.status, 400, query);
    assert.deepEqual(res.body, {
      code: 'ValidationException',
      message: 'limit must be one whole number from 1 to 1000.',
    });
  }
  for (const query of ['limit=1', 'limit=1000', 'q=sandbox&limit=5']) {
    assert.equal((await c.get(`/api/payers?${query}`)).status, 200, query);
  }
});

test('over the rate limit: 429 with Retry-After', async () => {
  const limited = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitStatus: 1 },
  });
  try {
    const c = client(limited.url, limited.apiKey);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.get('/api/payers')).status);
    const res = await c.get('/api/payers');
    assert.equal(res.status, 429, statuses.join());
    assert.equal(res.body.code, 'ThrottlingException');
    assert.ok(res.headers.get('retry-after'));
  } finally {
    await limited.stop();
  }
});
