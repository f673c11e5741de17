/**
 * Monitors beyond the generated security cases (security.generated.test.ts: no key, bad keys, scopes,
 * another organization's monitor on read, pause and delete, and its list): an organization with
 * eligibility turned off has its monitors wait.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runDueMonitors } from '../../src/monitors/runs.ts';
import { updateEligibilityEnabled } from '../../src/store/organizations.ts';
import { monitorBody } from '../helpers/monitors.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let monitorId: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  monitorId = (
    await client(svc.url, svc.apiKey).post('/api/eligibility/monitors', monitorBody({ every: 30 }))
  ).body.id;
});
after(() => svc.stop());

test('an organization with eligibility turned off: its due monitors do not run until it is on again', async () => {
  const db = svc.service.store.db;
  await db.query('UPDATE monitors SET next_run_at = now() WHERE id = $1', [monitorId]);
  await updateEligibilityEnabled(db, svc.organizationId, false);
  try {
    assert.equal((await runDueMonitors(db)).runs, 0);
  } finally {
    await updateEligibilityEnabled(db, svc.organizationId, true);
  }
  assert.equal((await runDueMonitors(db)).runs, 1, 'turned on again, the missed run happens once');
  assert.equal((await runDueMonitors(db)).runs, 0);
});
