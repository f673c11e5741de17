/** Paths and methods the API does not serve: 404 for an unknown path, 405 with `Allow` for a known one. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

const ID = '0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b';

test('an unknown path is a 404 with the error envelope', async () => {
  const res = await client(svc.url, svc.apiKey).get('/api/eligibility/nope/nothing');
  assert.equal(res.status, 404);
  assert.equal(res.body.code, 'ResourceNotFoundException');
  assert.equal(typeof res.body.message, 'string');
});

for (const [method, path, allow] of [
  ['POST', `/api/eligibility/${ID}/status`, 'GET, HEAD'],
  ['DELETE', `/api/eligibility/${ID}/status`, 'GET, HEAD'],
  ['GET', '/api/eligibility', 'POST'],
  ['PUT', '/api/payers', 'GET, HEAD'],
] as const) {
  test(`${method} ${path.replace(ID, '{id}')} is a 405 naming ${allow}`, async () => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), allow);
    const body = await res.json();
    assert.equal(body.code, 'ValidationException');
    assert.match(body.message, new RegExp(`^${method} is not allowed on /api/`));
    assert.ok(!body.message.includes(ID), 'the message names the route, not the id sent');
  });
}
