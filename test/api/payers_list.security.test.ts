/**
 * GET /api/payers beyond the generated security cases (security.generated.test.ts: authentication before
 * the query, the read scope): no gateway URL or credential in any answer, whatever the query.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { payersFixture } from '../helpers/payers-file.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

const fixture = payersFixture();
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { payersFile: fixture.path },
    connectorFactories: fixture.factories,
    secretEnv: fixture.env,
  });
});
after(async () => {
  await svc.stop();
  rmSync(fixture.dir, { recursive: true, force: true });
});

test('no gateway URL, host or credential ever appears in the body', async () => {
  const c = client(svc.url, svc.apiKey);
  for (const q of ['', 'acme', 'invalid', 'https', 'gateway', 'core-pass', 'stedi']) {
    const res = await c.get(`/api/payers?q=${encodeURIComponent(q)}`);
    assert.equal(res.status, 200);
    const text = JSON.stringify(res.body);
    for (const secret of fixture.secrets) assert.ok(!text.includes(secret), `secret in the body (q=${q})`);
    for (const url of fixture.urls) {
      assert.ok(!text.includes(new URL(url).host), `gateway host in the body (q=${q})`);
    }
    assert.doesNotMatch(text, /https?:|"url"|tokenUrl|password|clientSecret|payerId/);
  }
});
