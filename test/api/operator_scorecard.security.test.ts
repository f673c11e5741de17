/**
 * The operator routes' gate: only the METRICS_TOKEN bearer opens them (never an API key, another token, or
 * another scheme), a refusal comes before validation, and without METRICS_TOKEN they are not served (404)
 * while /metrics stays open as it always was.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTestService } from '../helpers/service.ts';

const TOKEN = 'operator-token-of-the-security-test';
const guarded = await startTestService({
  roles: { api: true, worker: false },
  config: { metricsToken: TOKEN },
});
const open = await startTestService({ roles: { api: true, worker: false } });
after(() => Promise.all([guarded.stop(), open.stop()]));

const get = (url: string, authorization?: string) =>
  fetch(url, { headers: authorization ? { authorization } : {} });
const PATHS = ['/operator/scorecard', '/operator/scorecard/payers/SANDBOX'];

test('without the bearer token: 401 with the envelope, for every other credential', async () => {
  const wrong = [
    undefined,
    `Key ${guarded.apiKey}`,
    `Bearer ${guarded.apiKey}`,
    `Bearer ${TOKEN.slice(0, -1)}x`,
    `Bearer ${TOKEN}x`,
    `bearer ${TOKEN}`,
    TOKEN,
  ];
  for (const path of PATHS) {
    for (const authorization of wrong) {
      const res = await get(guarded.url + path, authorization);
      assert.equal(res.status, 401, `${path} with ${authorization}`);
      const body = await res.json();
      assert.equal(body.code, 'UnauthorizedException');
      assert.ok(!JSON.stringify(body).includes(TOKEN), 'the token is never echoed');
    }
  }
});

test('a refused caller learns nothing from validation: 401 before 400', async () => {
  assert.equal((await get(`${guarded.url}/operator/scorecard?hours=0`)).status, 401);
  assert.equal((await get(`${guarded.url}/operator/scorecard?hours=0`, `Bearer ${TOKEN}`)).status, 400);
});

test('without METRICS_TOKEN the operator routes answer 404 to everyone; /metrics stays open', async () => {
  for (const path of PATHS) {
    for (const authorization of [undefined, `Key ${open.apiKey}`, `Bearer ${TOKEN}`]) {
      const res = await get(open.url + path, authorization);
      assert.equal(res.status, 404, `${path} with ${authorization}`);
      assert.equal((await res.json()).code, 'ResourceNotFoundException');
    }
  }
  assert.equal((await get(`${open.url}/metrics`)).status, 200);
});
