/**
 * MONITOR_MAX_PER_ORGANIZATION holds under races (issue 26 item 5): parallel creates with a few slots left
 * make exactly those slots, and every other create answers the documented 429, on PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMonitor } from '../../src/monitors/monitors.ts';
import { monitorBody } from '../helpers/monitors.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

const CAP = 8;
const EXISTING = 3;

let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { monitorMaxPerOrganization: CAP },
  });
});
after(() => svc.stop());

const post = () => client(svc.url, svc.apiKey).post('/api/eligibility/monitors', monitorBody({ every: 30 }));

const count = async () =>
  (
    await svc.service.store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM monitors WHERE organization_id = $1',
      [svc.organizationId],
    )
  ).rows[0]!.n;

test('30 parallel creates with 5 slots left: exactly 5 are created, the other 25 answer 429', async () => {
  for (let i = await count(); i < EXISTING; i++) assert.equal((await post()).status, 201);
  const answers = await Promise.all(Array.from({ length: 30 }, () => post()));
  const created = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(created.length, CAP - EXISTING, answers.map((a) => a.status).join(','));
  assert.equal(refused.length, 30 - (CAP - EXISTING));
  for (const r of refused) assert.equal(r.body.code, 'ThrottlingException');
  assert.equal(await count(), CAP);
});

test('the same race straight at the store: 30 creates at once after deleting 5 make exactly 5', async () => {
  const db = svc.service.store.db;
  await db.query(
    `DELETE FROM monitors WHERE id IN
       (SELECT id FROM monitors WHERE organization_id = $1 ORDER BY id LIMIT $2)`,
    [svc.organizationId, CAP - EXISTING],
  );
  assert.equal(await count(), EXISTING);
  const results = await Promise.all(
    Array.from({ length: 30 }, () =>
      createMonitor(db, svc.organizationId, monitorBody({ every: 30 }), { maxPerOrganization: CAP }),
    ),
  );
  assert.equal(results.filter((r) => r.ok).length, CAP - EXISTING);
  assert.equal(results.filter((r) => !r.ok && 'overLimit' in r).length, 30 - (CAP - EXISTING));
  assert.equal(await count(), CAP);
});
