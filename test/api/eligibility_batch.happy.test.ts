/**
 * Accepting a batch: 10,000 checks with one multi-row insert per chunk; the answer's shape. The 5 s target
 * is measured by `npm run bench -- batch`; here a one-minute guard only catches a hang or a quadratic path.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = sandboxRequest(member('SBX1000001'));
let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

test('10,000 checks are accepted, none lost, at background priority and in request order', async () => {
  const checks = Array.from({ length: 10_000 }, (_, i) => ({
    ...JANE,
    subscriber: { ...JANE.subscriber, memberId: `SBX${1_000_000 + i}` },
  }));
  const started = performance.now();
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility/batch', { name: 'big', checks });
  const ms = performance.now() - started;
  assert.equal(res.status, 202);
  assert.ok(ms < 60_000, `accepted in ${Math.round(ms)} ms`);
  assert.equal(res.body.items.length, 10_000);
  const { rows } = await svc.service.store.db.query<{
    n: number;
    first: string;
    last: string;
    priorities: number[];
  }>(
    `SELECT count(*)::int AS n, array_agg(DISTINCT priority) AS priorities,
            min(request->'subscriber'->>'memberId') FILTER (WHERE batch_index = 0) AS first,
            min(request->'subscriber'->>'memberId') FILTER (WHERE batch_index = 9999) AS last
       FROM checks WHERE batch_id = $1`,
    [res.body.id],
  );
  assert.deepEqual(rows[0], { n: 10_000, priorities: [1], first: 'SBX1000000', last: 'SBX1009999' });
  const { rows: ids } = await svc.service.store.db.query<{ id: string }>(
    'SELECT id FROM checks WHERE batch_id = $1 AND batch_index = 4321',
    [res.body.id],
  );
  assert.equal(res.body.items[4321].id, ids[0]?.id, "each item's check id in request order");
});

test('the answer: 202, the batch id, IN_PROGRESS, counts, and the progress readable at once', async () => {
  const c = client(svc.url, svc.apiKey);
  const res = await c.post('/api/eligibility/batch', { checks: [JANE, JANE] });
  assert.equal(res.status, 202);
  assert.deepEqual(Object.keys(res.body).sort(), ['counts', 'id', 'items', 'problems', 'status']);
  assert.deepEqual(res.body.counts, { total: 2, rejected: 0, IN_PROGRESS: 2, COMPLETED: 0, FAILED: 0 });
  const read = await c.get(`/api/eligibility/batch/${res.body.id}`);
  assert.equal(read.status, 200);
  assert.equal(read.body.status, 'IN_PROGRESS');
  assert.equal(read.body.progress, 0);
  assert.equal(read.body.name, null);
  assert.deepEqual(
    read.body.items.map((i: { index: number; status: string; verdict: null }) => [
      i.index,
      i.status,
      i.verdict,
    ]),
    [
      [0, 'IN_PROGRESS', null],
      [1, 'IN_PROGRESS', null],
    ],
  );
  assert.equal(read.body.next, null);
  const openapi = (await c.get('/openapi.json')).body;
  assert.ok(openapi.paths['/api/eligibility/batch'].post);
  assert.ok(openapi.paths['/api/eligibility/batch/{id}'].get);
});
