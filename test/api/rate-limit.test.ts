import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitSubmit: 1, rateLimitStatus: 1000 },
  });
});
after(() => svc.stop());

test('over the per-key rate: 429 ThrottlingException with Retry-After and RateLimit headers', async () => {
  const c = client(svc.url, svc.apiKey);
  const results = await Promise.all(
    Array.from({ length: 12 }, () => c.post('/api/eligibility', sandboxRequest(JANE))),
  );
  const limited = results.filter((r) => r.status === 429);
  const ok = results.filter((r) => r.status === 202);
  // Burst 2, refill 1/s: however slow the machine, far fewer than 12 get through in the first seconds.
  assert.ok(ok.length >= 2 && ok.length <= 6, `accepted ${ok.length} with a burst of 2`);
  assert.ok(limited.length >= 6);
  const r = limited[0]!;
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message']);
  assert.equal(r.body.code, 'ThrottlingException');
  assert.ok(Number(r.headers.get('retry-after')) >= 1);
  assert.equal(r.headers.get('ratelimit-remaining'), '0');
  assert.equal(ok[0]!.headers.get('ratelimit-limit'), '2');
  const metrics = await fetch(`${svc.url}/metrics`).then((x) => x.text());
  assert.match(metrics, /elig_rate_limited_total\{operation="\/api\/eligibility"\} \d+/);
});
