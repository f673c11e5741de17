/**
 * Monitors through the API, with a worker running: the first run of an `every` monitor happens at once and
 * completes as an ordinary check; a `dates` monitor checks each appointment with that date of service;
 * list pages, pause/resume and delete.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { dayFromToday, monitorBody, send } from '../helpers/monitors.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ config: { monitorPollMs: 100 } });
});
after(() => svc.stop());

const DAY_MS = 86_400_000;

async function runsOf(id: string, n: number) {
  const c = client(svc.url, svc.apiKey);
  return eventually(
    async () => {
      const res = await c.get(`/api/eligibility/monitors/${id}`);
      assert.equal(res.status, 200);
      return res.body.runs.length >= n && res.body.runs.every((r: any) => r.status !== 'IN_PROGRESS')
        ? res.body
        : undefined;
    },
    { what: `${n} finished runs of ${id}` },
  );
}

test('an every-N-days monitor: 201, its first run at once as an ordinary check, the next N days later', async () => {
  const c = client(svc.url, svc.apiKey);
  const before = Date.now();
  const created = await c.post('/api/eligibility/monitors', {
    ...monitorBody({ every: 30 }),
    encounter: { serviceTypeCodes: ['30', '98'] },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body;
  assert.match(m.id, /^mon_[0-9a-f-]{36}$/);
  assert.equal(m.status, 'active');
  assert.equal(m.every, 30);
  assert.equal(m.dates, null);
  assert.equal(m.runCount, 0);
  assert.deepEqual(m.encounter, { serviceTypeCodes: ['30', '98'] });
  assert.ok(Math.abs(Date.parse(m.nextRunAt) - before) < 60_000, 'first run due now');

  const read = await runsOf(m.id, 1);
  assert.equal(read.runCount, 1);
  assert.equal(read.runs[0].status, 'COMPLETED');
  assert.equal(read.runs[0].verdict, 'ACTIVE');
  assert.equal(read.runs[0].dateOfService, null);
  const next = Date.parse(read.nextRunAt) - Date.parse(m.nextRunAt);
  assert.ok(Math.abs(next - 30 * DAY_MS) < 1000, `next run 30 days after the first (${next} ms)`);
  // The run is readable alone like any check, with the monitor's service types.
  const result = await waitForResult(c, read.runs[0].checkId);
  assert.equal(result.status, 'COMPLETED');
  const { rows } = await svc.service.store.db.query<{ request: any; priority: number }>(
    'SELECT request, priority FROM checks WHERE id = $1',
    [read.runs[0].checkId],
  );
  assert.deepEqual(rows[0]!.request.encounter, { serviceTypeCodes: ['30', '98'] });
  assert.equal(rows[0]!.priority, 1, 'background priority: interactive checks go first');
});

test('a dates monitor: dates in either form, sorted, each once; tomorrow runs now with that date of service', async () => {
  const c = client(svc.url, svc.apiKey);
  const tomorrow = dayFromToday(1);
  const later = dayFromToday(40);
  const created = await c.post(
    '/api/eligibility/monitors',
    monitorBody({ dates: [dayFromToday(40, true), tomorrow, later] }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.dates, [tomorrow, later]);
  const read = await runsOf(created.body.id, 1);
  assert.equal(read.runs.length, 1, 'only the appointment whose day-before has come');
  assert.equal(read.runs[0].dateOfService, tomorrow);
  assert.equal(read.status, 'active');
  // The next appointment is checked from 00:00 UTC the day before it.
  assert.equal(read.nextRunAt, `${dayFromToday(39, true)}T00:00:00.000Z`);
});

test('a repaired request: the monitor keeps its requestCorrections and each run carries them, as a submit does', async () => {
  const c = client(svc.url, svc.apiKey);
  const check = sandboxRequest({ ...member('SBX1000001'), lastName: 'Dóe, Jr.', memberId: 'SBX-100 0001' });
  const repairable = { ...check, every: 30 };
  const submitted = await c.post('/api/eligibility', check);
  assert.equal(submitted.status, 202);
  assert.ok(submitted.body.requestCorrections.length >= 2);

  const created = await c.post('/api/eligibility/monitors', repairable);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.requestCorrections, submitted.body.requestCorrections);
  assert.ok(!JSON.stringify(created.body.requestCorrections).includes('Dóe'), 'no value named');
  const read = await runsOf(created.body.id, 1);
  assert.deepEqual(read.requestCorrections, submitted.body.requestCorrections);
  const result = await waitForResult(c, read.runs[0].checkId);
  assert.equal(result.status, 'COMPLETED', 'the repaired request still finds the member');
  assert.deepEqual(result.requestCorrections, submitted.body.requestCorrections);
  const warning = result.warnings.find((w: any) => w.code === 'REQUEST_CORRECTED');
  assert.ok(warning, 'a REQUEST_CORRECTED warning on the run');
  const asSubmitted = await waitForResult(c, submitted.body.id);
  assert.deepEqual(
    warning,
    asSubmitted.warnings.find((w: any) => w.code === 'REQUEST_CORRECTED'),
  );

  // A monitor whose request needed no repair has none, and neither have its runs.
  const plain = await c.post('/api/eligibility/monitors', monitorBody({ every: 30 }));
  assert.equal(plain.body.requestCorrections, undefined);
  const plainRun = await runsOf(plain.body.id, 1);
  const plainResult = await waitForResult(c, plainRun.runs[0].checkId);
  assert.equal(plainResult.requestCorrections, undefined);
  assert.ok(!plainResult.warnings?.some((w: any) => w.code === 'REQUEST_CORRECTED'));
});

test('the list pages newest first with a cursor', async () => {
  const c = client(svc.url, svc.apiKey);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      (await c.post('/api/eligibility/monitors', monitorBody({ dates: [dayFromToday(100)] }))).body.id,
    );
  }
  const first = await c.get('/api/eligibility/monitors?limit=2');
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.monitors.map((m: any) => m.id),
    [ids[2], ids[1]],
  );
  assert.equal(first.body.next, ids[1]);
  const second = await c.get(`/api/eligibility/monitors?limit=2&after=${first.body.next}`);
  assert.equal(second.body.monitors[0].id, ids[0]);
  const all = await c.get('/api/eligibility/monitors?limit=100');
  assert.equal(all.body.next, null);
  assert.ok(all.body.monitors.length >= 5);
});

test('pause and resume answer the monitor; delete answers 204, then 404, and its checks stay', async () => {
  const c = client(svc.url, svc.apiKey);
  const m = (await c.post('/api/eligibility/monitors', monitorBody({ every: 7 }))).body;
  const ran = await runsOf(m.id, 1);
  const url = `${svc.url}/api/eligibility/monitors/${m.id}`;
  const paused = await send(url, svc.apiKey, 'PATCH', { status: 'paused' });
  assert.equal(paused.status, 200);
  assert.equal(paused.body.status, 'paused');
  assert.equal(paused.body.nextRunAt, ran.nextRunAt, 'the schedule is kept');
  const resumed = await send(url, svc.apiKey, 'PATCH', { status: 'active' });
  assert.equal(resumed.body.status, 'active');
  const deleted = await send(url, svc.apiKey, 'DELETE');
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, '');
  assert.equal((await c.get(`/api/eligibility/monitors/${m.id}`)).status, 404);
  assert.equal((await send(url, svc.apiKey, 'DELETE')).status, 404);
  const check = await c.get(`/api/eligibility/${ran.runs[0].checkId}/status`);
  assert.equal(check.status, 200, 'the checks a monitor created outlive it');
});
