/** The monitor endpoints: every 4xx they answer, with the `{code, message}` envelope and no echoed PHI. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { dayFromToday, monitorBody, send } from '../helpers/monitors.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { monitorMaxPerOrganization: 5 },
  });
});
after(() => svc.stop());

const post = (body: unknown) => client(svc.url, svc.apiKey).post('/api/eligibility/monitors', body);

function assertEnvelope(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message']);
  assert.equal(res.body.code, code);
}

test('an invalid monitor body answers 400 naming each problem, with the submit messages for the check', async () => {
  const good = monitorBody({ every: 30 });
  const noSchedule = sandboxRequest(member('SBX1000001'));
  const cases: [unknown, RegExp][] = [
    [[good], /body must be a JSON object/],
    [noSchedule, /needs a schedule: every \(days, e\.g\. 30\) or dates/],
    [{ ...good, dates: [dayFromToday(3)] }, /either every or dates, not both/],
    [{ ...good, every: 0 }, /every must be a whole number of days from 1 to 365/],
    [{ ...good, every: 366 }, /every must be a whole number of days from 1 to 365/],
    [{ ...good, every: 1.5 }, /every must be a whole number/],
    [{ ...good, every: '30' }, /every must be a whole number/],
    [monitorBody({ dates: [] }), /dates must be a list of 1 to 100 appointment dates/],
    [monitorBody({ dates: ['next tuesday'] }), /dates\[0\] must be a date written YYYYMMDD or YYYY-MM-DD/],
    [monitorBody({ dates: [dayFromToday(2), '20260231'] }), /dates\[1\] is not a real date/],
    [monitorBody({ dates: [dayFromToday(-1)] }), /dates\[0\] is in the past/],
    [
      { ...good, encounter: { dateOfService: dayFromToday(3) } },
      /encounter\.dateOfService is set by the schedule/,
    ],
    [
      { ...good, provider: { organizationName: 'X', npi: '1234567890' } },
      /provider\.npi has an invalid check digit/,
    ],
    [
      { ...good, subscriber: { ...good.subscriber, dateOfBirth: '1980-02-30' } },
      /subscriber\.dateOfBirth is not a real date/,
    ],
    [{ ...good, evrey: 3 }, /`evrey` is not a known field of the request/],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    assertEnvelope(res, 400, 'ValidationException');
    assert.match(res.body.message, message);
    assert.ok(!res.body.message.includes(good.subscriber.lastName), 'no PHI echoed');
  }
  const bad = await post('{"every": ');
  assertEnvelope(bad, 400, 'ValidationException');
});

test('every problem at once: a bad schedule and a bad check field in one answer', async () => {
  const res = await post({ ...monitorBody({ every: 999 }), tradingPartnerServiceId: '' });
  assertEnvelope(res, 400, 'ValidationException');
  assert.match(res.body.message, /tradingPartnerServiceId/);
  assert.match(res.body.message, /every must be/);
});

test('a body not sent as JSON is 415', async () => {
  const res = await fetch(`${svc.url}/api/eligibility/monitors`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'text/plain' },
    body: 'every=3',
  });
  assert.equal(res.status, 415);
  assert.equal((await res.json()).code, 'ValidationException');
});

test('PATCH: a bad body is 400, an unknown or malformed id 404, a completed monitor cannot be resumed', async () => {
  const m = (await post(monitorBody({ dates: [dayFromToday(50)] }))).body;
  const url = `${svc.url}/api/eligibility/monitors/${m.id}`;
  for (const body of [{}, { status: 'stopped' }, { status: 'paused', every: 3 }, ['paused']]) {
    const res = await send(url, svc.apiKey, 'PATCH', body);
    assertEnvelope(res, 400, 'ValidationException');
    assert.match(res.body.message, /send \{"status": "paused"\} or \{"status": "active"\}/);
  }
  for (const id of [
    'mon_0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b',
    'nope',
    '0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b',
  ]) {
    const path = `${svc.url}/api/eligibility/monitors/${id}`;
    assertEnvelope(
      await send(path, svc.apiKey, 'PATCH', { status: 'paused' }),
      404,
      'ResourceNotFoundException',
    );
    assertEnvelope(await send(path, svc.apiKey, 'DELETE'), 404, 'ResourceNotFoundException');
    assertEnvelope(
      await client(svc.url, svc.apiKey).get(`/api/eligibility/monitors/${id}`),
      404,
      'ResourceNotFoundException',
    );
  }
  await svc.service.store.db.query(
    "UPDATE monitors SET status = 'completed', next_run_at = NULL WHERE id = $1",
    [m.id],
  );
  const resumed = await send(url, svc.apiKey, 'PATCH', { status: 'active' });
  assertEnvelope(resumed, 400, 'ValidationException');
  assert.match(resumed.body.message, /completed/);
});

test('list: a bad limit is 400', async () => {
  const c = client(svc.url, svc.apiKey);
  for (const q of ['limit=0', 'limit=101', 'limit=x']) {
    assertEnvelope(await c.get(`/api/eligibility/monitors?${q}`), 400, 'ValidationException');
  }
  assert.equal(
    (await c.get('/api/eligibility/monitors?after=garbage')).status,
    200,
    'an unknown cursor reads from the start',
  );
});

test('past MONITOR_MAX_PER_ORGANIZATION: 429 with Retry-After; deleting one makes room', async () => {
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM monitors WHERE organization_id = $1',
    [svc.organizationId],
  );
  for (let i = rows[0]!.n; i < 5; i++) assert.equal((await post(monitorBody({ every: 30 }))).status, 201);
  const over = await post(monitorBody({ every: 30 }));
  assertEnvelope(over, 429, 'ThrottlingException');
  assert.match(over.body.message, /most monitors allowed \(5\)/);
  assert.ok(Number(over.headers.get('retry-after')) >= 1);
  const some = (await client(svc.url, svc.apiKey).get('/api/eligibility/monitors')).body.monitors[0].id;
  assert.equal((await send(`${svc.url}/api/eligibility/monitors/${some}`, svc.apiKey, 'DELETE')).status, 204);
  assert.equal((await post(monitorBody({ every: 30 }))).status, 201);
});
