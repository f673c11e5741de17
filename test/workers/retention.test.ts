import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import { purgeCompletedMonitors, purgeExpiredChecks } from '../../src/workers/retention.ts';
import { eventually } from '../helpers/eventually.ts';
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
  // The service's own purger keeps to 10 years, so only the purges these tests run touch their rows.
  svc = await startTestService({ config: { retentionDays: 3650 } });
});
after(() => svc.stop());

test('finished checks older than the retention period keep only id, status, times and codes', async () => {
  const c = client(svc.url, svc.apiKey);
  const jane = member('SBX1000001');
  const ok = (await c.post('/api/eligibility', sandboxRequest(jane))).body.id;
  const failed = (await c.post('/api/eligibility', sandboxRequest({ ...jane, lastName: 'ROE' }))).body.id;
  const recent = (await c.post('/api/eligibility', sandboxRequest(member('SBX1000002')))).body.id;
  for (const id of [ok, failed, recent]) await waitForResult(c, id);
  const db = svc.service.store.db;
  await db.query("UPDATE checks SET completed_at = now() - interval '31 days' WHERE id = ANY($1)", [
    [ok, failed],
  ]);
  assert.equal(await purgeExpiredChecks(db, 30), 2);
  assert.equal(await purgeExpiredChecks(db, 30), 0, 'a purged check is not purged again');

  const purged = (await c.get(`/api/eligibility/${ok}/status`)).body;
  assert.deepEqual(Object.keys(purged).sort(), ['id', 'status', 'tradingPartnerServiceId', 'warnings']);
  assert.equal(purged.status, 'COMPLETED');
  assert.equal(purged.warnings[0].code, 'PURGED');
  const purgedFailed = (await c.get(`/api/eligibility/${failed}/status`)).body;
  assert.equal(purgedFailed.status, 'FAILED');
  assert.equal(purgedFailed.errors[0].code, '73');
  const { rows } = await db.query<{ request: string; result: string }>(
    'SELECT request::text, result FROM checks WHERE id = ANY($1)',
    [[ok, failed]],
  );
  for (const r of rows) {
    for (const phi of ['JANE', 'DOE', 'ROE', 'SBX1000001', '19800115', 'ISA']) {
      assert.ok(!r.request.includes(phi) && !r.result.includes(phi), `purged row still holds ${phi}`);
    }
  }
  const kept = (await c.get(`/api/eligibility/${recent}/status`)).body;
  assert.equal(kept.subscriber.memberId, 'SBX1000002', 'recent checks are untouched');
});

test('a backlog is purged batch by batch, and stopping waits for one batch at most', async () => {
  const db = svc.service.store.db;
  const org = svc.organizationId;
  // 1,200 finished checks, all past retention: three batches of 500, 500 and 200.
  await db.query(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, result, completed_at, created_at)
     SELECT '00000000-0000-7000-8000-' || lpad(i::text, 12, '0'), $1, 'COMPLETED', 'SANDBOX',
            '{"subscriber":{"memberId":"SBX1000001"}}'::jsonb, '{"status":"COMPLETED"}',
            now() - interval '40 days', now() - interval '40 days'
       FROM generate_series(1, 1200) AS i`,
    [org],
  );
  const open = async () =>
    (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM checks WHERE id LIKE '00000000-0000-7000-8000-%' AND purged_at IS NULL",
      )
    ).rows[0]!.n;
  const { startRetention } = await import('../../src/workers/retention.ts');
  const { createLogger } = await import('../../src/log.ts');
  // A long pause between batches: stopping during it must not wait for the rest of the backlog.
  const stop = startRetention(db, createLogger('silent'), 30, 60_000, 5_000);
  await eventually(async () => (await open()) < 1200, {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: 'the first batch',
  });
  const t0 = Date.now();
  await stop();
  assert.ok(Date.now() - t0 < 2_000, `stop took ${Date.now() - t0} ms`);
  assert.equal(await open(), 700, 'exactly one batch of 500 was purged before the stop');

  const again = startRetention(db, createLogger('silent'), 30, 60_000, 10);
  await eventually(async () => (await open()) === 0, {
    timeoutMs: 15_000,
    intervalMs: 50,
    what: 'the rest of the backlog',
  });
  await again();
  assert.equal(await open(), 0, 'the rest of the backlog is purged');
});

test('a retention round also deletes sign-in throttle rows untouched for an hour', async () => {
  const db = svc.service.store.db;
  await db.query(
    `INSERT INTO login_attempts (key, attempts, last_attempt_at)
     VALUES ('account:retention-old', 3, now() - interval '61 minutes'), ('account:retention-new', 3, now())`,
  );
  const keys = async () =>
    (
      await db.query<{ key: string }>(
        "SELECT key FROM login_attempts WHERE key LIKE 'account:retention-%' ORDER BY key",
      )
    ).rows.map((r) => r.key);
  const { startRetention } = await import('../../src/workers/retention.ts');
  const { createLogger } = await import('../../src/log.ts');
  const stop = startRetention(db, createLogger('silent'), 3650, 60_000, 10);
  const deadline = Date.now() + 10_000;
  while ((await keys()).length === 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await stop();
  assert.deepEqual(await keys(), ['account:retention-new']);
});

test('purging a check clears its patient history: patient_key, reuse_key and coverage_changes', async () => {
  const c = client(svc.url, svc.apiKey);
  // SBX1000011 is active on 31 October and inactive from 1 November: the second check records a change.
  const ask = (dateOfService: string) =>
    sandboxRequest(member('SBX1000011'), { encounter: { serviceTypeCodes: ['30'], dateOfService } });
  const first = (await c.post('/api/eligibility', ask('20261031'))).body.id;
  await waitForResult(c, first);
  const second = (await c.post('/api/eligibility', ask('20261101'))).body.id;
  await waitForResult(c, second);
  const db = svc.service.store.db;
  const history = async () =>
    (
      await db.query<{ id: string; patient_key: string | null; reuse_key: string | null; changes: unknown }>(
        'SELECT id, patient_key, reuse_key, coverage_changes AS changes FROM checks WHERE id = ANY($1) ORDER BY id',
        [[first, second]],
      )
    ).rows;
  const before = await history();
  for (const row of before) {
    assert.ok(row.patient_key, 'a finished check has a patient key');
    assert.ok(row.reuse_key, 'a finished check has a reuse key');
  }
  assert.ok(before[1]!.changes, 'the second check recorded the coverage change');

  await db.query("UPDATE checks SET completed_at = now() - interval '31 days' WHERE id = ANY($1)", [
    [first, second],
  ]);
  assert.equal(await purgeExpiredChecks(db, 30), 2);
  for (const row of await history()) {
    assert.deepEqual(row, { id: row.id, patient_key: null, reuse_key: null, changes: null });
  }
});

test('completed monitors past retention are deleted; their checks stay, unlinked; others are kept', async () => {
  const db = svc.service.store.db;
  const c = client(svc.url, svc.apiKey);
  const ids: Record<string, string> = {};
  const add = async (name: string, status: string, lastRunDaysAgo: number | null, createdDaysAgo: number) => {
    ids[name] = `mon_${uuidv7()}`;
    await db.query(
      `INSERT INTO monitors (id, organization_id, status, trading_partner_service_id, request, dates, next_run_at,
                             last_run_at, runs, created_at)
       VALUES ($1, $2, $3, 'SANDBOX', $4, ARRAY['20260110'], NULL,
               now() - $5 * interval '1 day', $6, now() - $7 * interval '1 day')`,
      [
        ids[name],
        svc.organizationId,
        status,
        sandboxRequest(member('SBX1000001')),
        lastRunDaysAgo,
        lastRunDaysAgo === null ? 0 : 1,
        createdDaysAgo,
      ],
    );
  };
  await add('completedLongAgo', 'completed', 31, 40);
  await add('completedNeverRan', 'completed', null, 31);
  await add('completedRecently', 'completed', 5, 40);
  await add('activeOld', 'active', 31, 40);
  await add('pausedOld', 'paused', 31, 40);
  // A run of the monitor that goes: it stays, no longer linked.
  const run = (await c.post('/api/eligibility', sandboxRequest(member('SBX1000001')))).body.id;
  await waitForResult(c, run);
  await db.query('UPDATE checks SET monitor_id = $1 WHERE id = $2', [ids.completedLongAgo, run]);

  assert.equal(await purgeCompletedMonitors(db, 30), 2);
  assert.equal(await purgeCompletedMonitors(db, 30), 0);
  const { rows } = await db.query<{ id: string }>('SELECT id FROM monitors WHERE id = ANY($1)', [
    Object.values(ids),
  ]);
  assert.deepEqual(
    rows.map((r) => r.id).sort(),
    [ids.completedRecently, ids.activeOld, ids.pausedOld].sort(),
  );
  assert.equal((await c.get(`/api/eligibility/monitors/${ids.completedLongAgo}`)).status, 404);
  const check = await db.query<{ monitor_id: string | null }>('SELECT monitor_id FROM checks WHERE id = $1', [
    run,
  ]);
  assert.equal(check.rows[0]!.monitor_id, null);
  assert.equal((await c.get(`/api/eligibility/${run}/status`)).body.status, 'COMPLETED', 'the check stays');
});
