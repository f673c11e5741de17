/**
 * Insurance discovery through the API (docs/discovery.md): a sandbox member found by name and date of
 * birth, stored as an ordinary completed check; nothing found; one `discovery.completed` event and no
 * `eligibility.completed` for the inquiries; inquiries that found nothing left out of the check list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { selectCheckPage } from '../../src/store/checks.ts';
import { updateWebhookUrl } from '../../src/store/organizations.ts';
import { discoveryRequest, waitForDiscovery } from '../helpers/discovery.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { client, startTestService, type TestService, waitForResult } from '../helpers/service.ts';

const JANE = member('SBX1000001');

describe('POST /api/eligibility/discovery', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    // Events are written only for an organization with a URL; nothing needs to receive them here.
    await updateWebhookUrl(svc.service.store.db, svc.organizationId, 'http://127.0.0.1:9/hook');
  });
  after(() => svc.stop());

  test('finds a sandbox member by name and date of birth: one coverage, an ordinary completed check', async () => {
    const c = client(svc.url, svc.apiKey);
    const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(JANE));
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    assert.deepEqual(Object.keys(accepted.body).sort(), ['id', 'status']);
    assert.equal(accepted.body.status, 'IN_PROGRESS');
    const done = await waitForDiscovery(c, accepted.body.id);
    assert.deepEqual(done.progress, { asked: 1, answered: 1 });
    assert.equal(done.coverages.length, 1);
    const [coverage] = done.coverages;
    assert.equal(coverage.tradingPartnerServiceId, 'SANDBOX');
    assert.equal(coverage.planName, 'Sandbox PPO Gold');
    assert.equal(coverage.verdict.status, 'ACTIVE');
    assert.equal(coverage.memberId, undefined, 'the discovery holds no patient data');
    const check = await waitForResult(c, coverage.checkId);
    assert.equal(check.status, 'COMPLETED');
    assert.equal(check.subscriber.memberId, JANE.memberId, 'the payer answered with the member id');
    assert.equal(check.verdict.status, 'ACTIVE');
    assert.ok(check.benefits.length > 0);
  });

  test('a dashed date of birth and accents are repaired as a submit repairs them', async () => {
    const c = client(svc.url, svc.apiKey);
    const dob = `${JANE.dateOfBirth.slice(0, 4)}-${JANE.dateOfBirth.slice(4, 6)}-${JANE.dateOfBirth.slice(6)}`;
    const body = discoveryRequest({ ...JANE, firstName: 'Jáne', dateOfBirth: dob });
    const accepted = await c.post('/api/eligibility/discovery', body);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const done = await waitForDiscovery(c, accepted.body.id);
    assert.equal(done.coverages.length, 1);
    const check = await waitForResult(c, done.coverages[0].checkId);
    assert.deepEqual(check.requestCorrections.map((r: { field: string }) => r.field).sort(), [
      'subscriber.dateOfBirth',
      'subscriber.firstName',
    ]);
  });

  test('nobody by that name: COMPLETED without coverages, and the failed inquiry is not in the check list', async () => {
    const c = client(svc.url, svc.apiKey);
    const accepted = await c.post(
      '/api/eligibility/discovery',
      discoveryRequest({ ...JANE, firstName: 'NOBODY' }),
    );
    assert.equal(accepted.status, 202);
    const done = await waitForDiscovery(c, accepted.body.id);
    assert.deepEqual(done.progress, { asked: 1, answered: 1 });
    assert.deepEqual(done.coverages, []);
    const db = svc.service.store.db;
    const { rows } = await db.query<{ id: string; outcome_code: string }>(
      'SELECT id, outcome_code FROM checks WHERE discovery_id = $1',
      [accepted.body.id],
    );
    assert.deepEqual(
      rows.map((r) => r.outcome_code),
      ['AAA:75'],
    );
    const listed = await selectCheckPage(db, svc.organizationId, { limit: 1000 });
    assert.ok(!listed.some((r) => r.id === rows[0]!.id), 'hidden from the list');
    const failedListed = await selectCheckPage(db, svc.organizationId, { status: 'FAILED', limit: 1000 });
    assert.ok(!failedListed.some((r) => r.id === rows[0]!.id), 'hidden from the FAILED filter too');
  });

  test('one discovery.completed event per discovery, its body the status answer; no eligibility.completed for inquiries', async () => {
    const c = client(svc.url, svc.apiKey);
    const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(JANE));
    const done = await waitForDiscovery(c, accepted.body.id);
    const db = svc.service.store.db;
    const events = await eventually(async () => {
      const { rows } = await db.query<{ kind: string; body: string; check_id: string | null }>(
        `SELECT kind, body, check_id FROM webhook_events
          WHERE discovery_id = $1 OR check_id IN (SELECT id FROM checks WHERE discovery_id = $1)`,
        [accepted.body.id],
      );
      return rows.length ? rows : undefined;
    });
    assert.deepEqual(
      events.map((e) => e.kind),
      ['discovery.completed'],
    );
    assert.deepEqual(JSON.parse(events[0]!.body), { type: 'discovery.completed', discovery: done });
  });

  test('the found check is listed like any other', async () => {
    const c = client(svc.url, svc.apiKey);
    const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(JANE));
    const done = await waitForDiscovery(c, accepted.body.id);
    const listed = await selectCheckPage(svc.service.store.db, svc.organizationId, { limit: 1000 });
    assert.ok(listed.some((r) => r.id === done.coverages[0].checkId));
  });
});
