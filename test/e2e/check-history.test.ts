/**
 * A check against the organization's earlier checks, end to end on the sandbox (issue 17 sections 2 and 3):
 * reuse within and outside the window, what is never reused (another question, a FAILED check, another
 * organization's check, a monitor's run), the organization default, and `coverage.changed` for each kind
 * of change the sandbox can produce (SBX1000011 and SBX1000012 on two dates of service), exactly one event
 * per check, delivered by webhook with `X-Webhook-Event: coverage.changed`.
 *
 * Each test asks its own question (its own date of service or member), so the tests do not reuse or
 * compare each other's checks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization, setReuseWithinHours } from '../../src/tenancy/organizations.ts';
import { setWebhookSecret, setWebhookUrl } from '../../src/webhooks/settings.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { Receiver } from '../helpers/receiver.ts';
import {
  type Client,
  client,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
const OLIVIA = member('SBX1000011');
const HENRY = member('SBX1000012');

let svc: TestService;
let receiver: Receiver;
let c: Client;
let other: { organizationId: string; c: Client };

before(async () => {
  svc = await startTestService({ webhookScheduleScale: 0.0005 });
  receiver = await new Receiver().start();
  const db = svc.service.store.db;
  assert.ok((await setWebhookUrl(db, svc.organizationId, receiver.url, { allowPrivate: true })).ok);
  assert.ok((await setWebhookSecret(db, svc.service.box, svc.organizationId, { generate: true })).ok);
  c = client(svc.url, svc.apiKey);
  const org = await createOrganization(db, 'Other Clinic');
  const { key } = await createApiKey(db, svc.service.keys.apiKeyPepper, {
    organizationId: org.id,
    name: 'other',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  other = { organizationId: org.id, c: client(svc.url, key) };
});
after(async () => {
  await svc.stop();
  await receiver.stop();
});

const ask = (person: typeof JANE, dateOfService: string, extra: object = {}, encounter: object = {}) =>
  sandboxRequest(person, { encounter: { serviceTypeCodes: ['30'], dateOfService, ...encounter }, ...extra });

/** The payer calls the worker logged for a check (one log line per call, ids only). */
function payerCalls(checkId: string): number {
  return svc.logs.lines
    .map((l) => JSON.parse(l) as { msg?: string; checkId?: string })
    .filter((l) => l.msg === 'payer call' && l.checkId === checkId).length;
}

/** Moves a finished check's finish time into the past, as if it had finished `hours` ago. */
async function age(checkId: string, hours: number): Promise<void> {
  await svc.service.store.db.query(
    `UPDATE checks SET completed_at = now() - $2 * interval '1 hour' WHERE id = $1`,
    [checkId, hours],
  );
}

async function events(checkId: string, kind: string): Promise<{ body: string }[]> {
  const { rows } = await svc.service.store.db.query<{ body: string }>(
    'SELECT body FROM webhook_events WHERE check_id = $1 AND kind = $2',
    [checkId, kind],
  );
  return rows;
}

/** Deliveries the receiver got of one type about one check. */
function delivered(type: string, checkId: string) {
  return receiver.received.filter((r) => {
    if (r.headers['x-webhook-event'] !== type) return false;
    const body = JSON.parse(r.body) as { id?: string; checkId?: string };
    return (type === 'coverage.changed' ? body.checkId : body.id) === checkId;
  });
}

const withoutOwn = (body: Record<string, unknown>) => {
  const { id: _id, meta, ...rest } = body as { id: string; meta: Record<string, unknown> };
  const { reusedFrom: _from, ...ownMeta } = meta;
  return { ...rest, meta: ownMeta };
};

describe('no paid re-checks', () => {
  test('within the window: completes with the earlier result, its own id and webhook, no payer call', async () => {
    const first = await submitAndWait(c, ask(JANE, '20261201'));
    assert.equal(first.result.status, 'COMPLETED');
    assert.equal(first.result.meta.reusedFrom, undefined);
    const again = await submitAndWait(c, ask(JANE, '20261201', { reuseWithinHours: 24 }));
    const { result } = again;
    assert.notEqual(result.id, first.result.id);
    assert.equal(result.status, 'COMPLETED');
    assert.equal(result.meta.reusedFrom.id, first.result.id);
    const { rows } = await svc.service.store.db.query<{ completedAt: Date }>(
      'SELECT completed_at AS "completedAt" FROM checks WHERE id = $1',
      [first.result.id],
    );
    assert.equal(result.meta.reusedFrom.finishedAt, rows[0]!.completedAt.toISOString());
    assert.deepEqual(withoutOwn(result), withoutOwn(first.result));
    assert.equal(payerCalls(first.result.id), 1);
    assert.equal(payerCalls(result.id), 0);
    // Its own completion webhook, with its own body (the status body), and no coverage.changed.
    const [hook] = await eventually(() => {
      const got = delivered('eligibility.completed', result.id);
      if (!got.length) throw new Error('no webhook yet');
      return got;
    });
    assert.deepEqual(JSON.parse(hook!.body), result);
    assert.equal((await events(result.id, 'coverage.changed')).length, 0);
    // The stored request is the question only: the reuse window is not part of it.
    const stored = await svc.service.store.db.query<{ request: Record<string, unknown>; reuse: number }>(
      'SELECT request, reuse_within_hours AS reuse FROM checks WHERE id = $1',
      [result.id],
    );
    assert.equal(stored.rows[0]!.request.reuseWithinHours, undefined);
    assert.equal(stored.rows[0]!.reuse, 24);
  });

  test('outside the window the payer is asked; a reused check is never itself reused', async () => {
    const first = await submitAndWait(c, ask(JANE, '20261202'));
    await age(first.result.id, 3);
    const late = await submitAndWait(c, ask(JANE, '20261202', { reuseWithinHours: 2 }));
    assert.equal(late.result.meta.reusedFrom, undefined);
    assert.equal(payerCalls(late.result.id), 1);
    await age(late.result.id, 3);
    const wider = await submitAndWait(c, ask(JANE, '20261202', { reuseWithinHours: 4 }));
    assert.equal(wider.result.meta.reusedFrom.id, late.result.id, 'the newest answer within the window');
    // `wider` finished just now, but it only repeats `late` (3 hours old): a 2-hour window finds nothing.
    const again = await submitAndWait(c, ask(JANE, '20261202', { reuseWithinHours: 2 }));
    assert.equal(again.result.meta.reusedFrom, undefined);
  });

  test('another provider, other service types or another date of service are another question', async () => {
    const first = await submitAndWait(c, ask(JANE, '20261203'));
    const variants = [
      ask(JANE, '20261203', {
        reuseWithinHours: 24,
        provider: { organizationName: 'Other', npi: '1245319599' },
      }),
      ask(JANE, '20261203', { reuseWithinHours: 24 }, { serviceTypeCodes: ['30', 'PT'] }),
      ask(JANE, '20261204', { reuseWithinHours: 24 }),
    ];
    for (const [i, body] of variants.entries()) {
      const { result } = await submitAndWait(c, body);
      assert.equal(result.meta.reusedFrom, undefined, `variant ${i}`);
      assert.equal(payerCalls(result.id), 1);
    }
    // Service types are a set: the same codes in another order are the same question.
    const same = await submitAndWait(
      c,
      ask(JANE, '20261203', { reuseWithinHours: 24 }, { serviceTypeCodes: ['30', '30'] }),
    );
    assert.equal(same.result.meta.reusedFrom.id, first.result.id);
  });

  test('a FAILED check is never reused', async () => {
    const person = member('SBX1000067');
    const first = await submitAndWait(c, ask(person, '20261205'));
    assert.equal(first.result.status, 'FAILED');
    const again = await submitAndWait(c, ask(person, '20261205', { reuseWithinHours: 24 }));
    assert.equal(again.result.status, 'FAILED');
    assert.equal(payerCalls(again.result.id), 1);
    assert.equal(again.result.meta?.reusedFrom, undefined);
  });

  test("another organization's check is never reused", async () => {
    const mine = await submitAndWait(c, ask(JANE, '20261206'));
    const theirs = await submitAndWait(other.c, ask(JANE, '20261206', { reuseWithinHours: 24 }));
    assert.equal(theirs.result.status, 'COMPLETED');
    assert.equal(theirs.result.meta.reusedFrom, undefined);
    assert.equal(payerCalls(theirs.result.id), 1);
    assert.notEqual(theirs.result.id, mine.result.id);
  });

  test('the organization default applies when a submit does not say; 0 and monitor runs never reuse', async () => {
    const db = svc.service.store.db;
    const first = await submitAndWait(c, ask(JANE, '20261207'));
    await setReuseWithinHours(db, svc.organizationId, 12);
    try {
      const byDefault = await submitAndWait(c, ask(JANE, '20261207'));
      assert.equal(byDefault.result.meta.reusedFrom.id, first.result.id);
      const never = await submitAndWait(c, ask(JANE, '20261207', { reuseWithinHours: 0 }));
      assert.equal(never.result.meta.reusedFrom, undefined);
      assert.equal(payerCalls(never.result.id), 1);
      const monitorRun = await submitCheck(
        db,
        svc.organizationId,
        ask(JANE, '20261207', { reuseWithinHours: 24 }),
        {
          allowReuse: false,
        },
      );
      assert.ok(monitorRun.ok && 'id' in monitorRun);
      const result = await waitForResult(c, monitorRun.id);
      assert.equal(result.meta.reusedFrom, undefined);
      assert.equal(payerCalls(monitorRun.id), 1);
    } finally {
      await setReuseWithinHours(db, svc.organizationId, null);
    }
    const off = await submitAndWait(c, ask(JANE, '20261207'));
    assert.equal(off.result.meta.reusedFrom, undefined);
  });

  test('a real monitor run asks the payer though the organization reuses by default', async () => {
    const db = svc.service.store.db;
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    const first = await submitAndWait(c, ask(JANE, today));
    await setReuseWithinHours(db, svc.organizationId, 12);
    try {
      // The same question from a client is answered from the first check: the keys match.
      const reused = await submitAndWait(c, ask(JANE, today));
      assert.equal(reused.result.meta.reusedFrom.id, first.result.id);
      const { tradingPartnerServiceId, provider, subscriber } = ask(JANE, today);
      const created = await c.post('/api/eligibility/monitors', {
        tradingPartnerServiceId,
        provider,
        subscriber,
        encounter: { serviceTypeCodes: ['30'] },
        dates: [today],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const runId = await eventually(
        async () => {
          const { rows } = await db.query<{ id: string }>('SELECT id FROM checks WHERE monitor_id = $1', [
            created.body.id,
          ]);
          return rows[0]?.id;
        },
        { what: "the monitor's run" },
      );
      const result = await waitForResult(c, runId);
      assert.equal(result.status, 'COMPLETED');
      assert.equal(result.meta.reusedFrom, undefined);
      assert.equal(payerCalls(runId), 1);
    } finally {
      await setReuseWithinHours(db, svc.organizationId, null);
    }
  });

  test('batch items reuse too, and the batch counts them', async () => {
    const first = await submitAndWait(c, ask(JANE, '20261208'));
    const res = await c.post('/api/eligibility/batch', {
      checks: [
        ask(JANE, '20261208', { reuseWithinHours: 24 }),
        ask(JANE, '20261209', { reuseWithinHours: 24 }),
      ],
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const [reused, fresh] = await Promise.all(
      res.body.items.map((i: { id: string }) => waitForResult(c, i.id)),
    );
    assert.equal(reused.meta.reusedFrom.id, first.result.id);
    assert.equal(fresh.meta.reusedFrom, undefined);
    const batch = await eventually(async () => {
      const b = await c.get(`/api/eligibility/batch/${res.body.id}`);
      if (b.body.status !== 'COMPLETED') throw new Error('batch still running');
      return b.body;
    });
    assert.equal(batch.counts.COMPLETED, 2);
  });

  test('a bad reuseWithinHours is a 400 naming the field (single submit and batch item)', async () => {
    for (const value of [169, -1, 1.5, '24']) {
      const res = await c.post('/api/eligibility', ask(JANE, '20261210', { reuseWithinHours: value }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'ValidationException');
      assert.match(res.body.message, /reuseWithinHours/);
    }
    const res = await c.post('/api/eligibility/batch', {
      checks: [ask(JANE, '20261210'), ask(JANE, '20261210', { reuseWithinHours: 1000 })],
    });
    assert.equal(res.status, 202);
    assert.deepEqual(
      res.body.problems.map((p: { index: number }) => p.index),
      [1],
    );
    assert.match(res.body.problems[0].message, /reuseWithinHours/);
  });
});

describe('coverage.changed', () => {
  /** The one coverage.changed event of a check, once delivered: its stored and its delivered body. */
  async function changedEvent(checkId: string) {
    const hooks = await eventually(() => {
      const got = delivered('coverage.changed', checkId);
      if (!got.length) throw new Error('no coverage.changed delivery yet');
      return got;
    });
    const stored = await events(checkId, 'coverage.changed');
    assert.equal(stored.length, 1, 'exactly one coverage.changed event per check');
    assert.equal(hooks.length, 1);
    assert.equal(hooks[0]!.body, stored[0]!.body);
    return JSON.parse(hooks[0]!.body);
  }

  test('SBX1000011: plan active → inactive between two dates of service', async () => {
    const before = await submitAndWait(c, ask(OLIVIA, '20261031'));
    assert.equal(before.result.planActive, true);
    assert.equal((await events(before.result.id, 'coverage.changed')).length, 0, 'nothing to compare with');
    const afterwards = await submitAndWait(c, ask(OLIVIA, '20261101'));
    assert.equal(afterwards.result.verdict.status, 'INACTIVE');
    const event = await changedEvent(afterwards.result.id);
    assert.deepEqual(event, {
      type: 'coverage.changed',
      checkId: afterwards.result.id,
      previousCheckId: before.result.id,
      previousFinishedAt: event.previousFinishedAt,
      tradingPartnerServiceId: 'SANDBOX',
      changes: [{ kind: 'PLAN_STATUS', field: 'planActive', before: true, after: false }],
    });
    assert.match(event.previousFinishedAt, /^\d{4}-\d\d-\d\dT/);
    // And back: active again is a change too.
    const again = await submitAndWait(c, ask(OLIVIA, '20261030'));
    const back = await changedEvent(again.result.id);
    assert.equal(back.previousCheckId, afterwards.result.id);
    assert.deepEqual(back.changes, [
      { kind: 'PLAN_STATUS', field: 'planActive', before: false, after: true },
    ]);
  });

  test('SBX1000012: deductible met and physical therapy visits exhausted', async () => {
    const before = await submitAndWait(c, ask(HENRY, '20261031', {}, { serviceTypeCodes: ['30', 'PT'] }));
    const afterwards = await submitAndWait(c, ask(HENRY, '20261101', {}, { serviceTypeCodes: ['30', 'PT'] }));
    const event = await changedEvent(afterwards.result.id);
    assert.equal(event.previousCheckId, before.result.id);
    assert.deepEqual(event.changes, [
      { kind: 'DEDUCTIBLE_MET', field: 'deductibleRemaining', before: 500, after: 0 },
      {
        kind: 'VISITS_EXHAUSTED',
        field: 'visitsUsed',
        serviceType: 'Outpatient Physical Therapy',
        before: 4,
        after: 20,
        visitLimit: 20,
      },
    ]);
    // The same answer again: no change, no event.
    const same = await submitAndWait(c, ask(HENRY, '20261102', {}, { serviceTypeCodes: ['30', 'PT'] }));
    assert.equal(same.result.meta.reusedFrom, undefined);
    await eventually(() => {
      if (!delivered('eligibility.completed', same.result.id).length) throw new Error('not delivered yet');
      return true;
    });
    assert.equal((await events(same.result.id, 'coverage.changed')).length, 0);
  });

  test("another organization's checks are no baseline; a batch check is compared like a single one", async () => {
    // Other Clinic has never checked OLIVIA: its first check (inactive) has nothing to compare with, although
    // this organization has checked her many times.
    const theirs = await submitAndWait(other.c, ask(OLIVIA, '20261101'));
    const { rows } = await svc.service.store.db.query<{ comparedWith: string | null }>(
      'SELECT compared_with AS "comparedWith" FROM checks WHERE id = $1',
      [theirs.result.id],
    );
    assert.equal(rows[0]!.comparedWith, null);
    // A batch item for OLIVIA on 20261101 after this organization's latest check (active, 20261030).
    const res = await c.post('/api/eligibility/batch', { checks: [ask(OLIVIA, '20261105')] });
    assert.equal(res.status, 202);
    const result = await waitForResult(c, res.body.items[0].id);
    assert.equal(result.planActive, false);
    const event = await changedEvent(result.id);
    assert.deepEqual(event.changes, [
      { kind: 'PLAN_STATUS', field: 'planActive', before: true, after: false },
    ]);
  });

  test('nothing in a log line names the patient or the changes', () => {
    for (const person of [JANE, OLIVIA, HENRY]) {
      for (const value of [person.memberId, person.lastName, person.dateOfBirth]) {
        assert.ok(!svc.logs.text.includes(value), 'PHI in the logs');
      }
    }
    assert.ok(!svc.logs.text.includes('VISITS_EXHAUSTED'));
  });
});
