/**
 * Insurance discovery's refusals and limits (docs/discovery.md): every 400 it answers, the fan-out cap (at
 * most 25 payers per discovery), the organization's daily cap (429, also under concurrent submits), and
 * another organization's discovery (404, like a missing one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PayerEntry } from '../../src/payers/connector.ts';
import { sandboxPayerEntry } from '../../src/payers/directory.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { discoveryRequest, waitForDiscovery } from '../helpers/discovery.ts';
import { member } from '../helpers/members.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
const DAILY_CAP = 41;

/** The sandbox, 29 payers more that search (the sandbox's member table behind other ids), one that does not. */
function directory(): PayerEntry[] {
  const sandbox = sandboxPayerEntry(createSandboxConnector({ latencyMs: 0 }));
  const clones = Array.from({ length: 29 }, (_, i) => ({
    ...sandbox,
    tradingPartnerServiceId: `SEARCH${String(i + 1).padStart(2, '0')}`,
    payerName: `Search Plan ${i + 1}`,
    payerId: `SEARCH${i + 1}`,
  }));
  const { demographicSearch: _, ...plain } = sandbox;
  return [
    sandbox,
    ...clones,
    { ...plain, tradingPartnerServiceId: 'NOSEARCH', payerName: 'No Search', payerId: 'NOSEARCH' },
  ];
}

let svc: TestService;
before(async () => {
  svc = await startTestService({ payers: directory(), config: { discoveryMaxInquiriesPerDay: DAILY_CAP } });
});
after(() => svc.stop());

const inquiries = async (discoveryId: string) =>
  (
    await svc.service.store.db.query<{ trading_partner_service_id: string }>(
      'SELECT trading_partner_service_id FROM checks WHERE discovery_id = $1 ORDER BY id',
      [discoveryId],
    )
  ).rows.map((r) => r.trading_partner_service_id);

describe('400: the request', () => {
  const cases: [string, unknown, RegExp][] = [
    ['not an object', [], /body must be a JSON object/],
    ['no patient', { provider: discoveryRequest(JANE).provider }, /patient is required/],
    [
      'no date of birth',
      discoveryRequest({ ...JANE, dateOfBirth: undefined as unknown as string }),
      /patient\.dateOfBirth is required/,
    ],
    [
      'a date of birth in the future',
      discoveryRequest({ ...JANE, dateOfBirth: '29990101' }),
      /patient\.dateOfBirth is in the future/,
    ],
    [
      'a bad NPI',
      { ...discoveryRequest(JANE), provider: { organizationName: 'X', npi: '1234567890' } },
      /provider\.npi has an invalid check digit/,
    ],
    [
      'a member id (discovery is without one)',
      { ...discoveryRequest(JANE), patient: { ...discoveryRequest(JANE).patient, memberId: 'SBX1000001' } },
      /unknown field `memberId`/,
    ],
    ['an unknown field', { ...discoveryRequest(JANE), subscriber: {} }, /unknown field `subscriber`/],
    [
      'a bad state',
      { ...discoveryRequest(JANE), patient: { ...discoveryRequest(JANE).patient, state: 'Texas' } },
      /patient\.state must be a two-letter/,
    ],
    [
      'a bad ZIP code',
      { ...discoveryRequest(JANE), patient: { ...discoveryRequest(JANE).patient, postalCode: '7520' } },
      /patient\.postalCode must be a ZIP code/,
    ],
    [
      'a payer not in the directory',
      discoveryRequest(JANE, { payers: ['NOPE'] }),
      /payers\[0\] is not a payer of the directory/,
    ],
    [
      'a payer that takes no demographic search',
      discoveryRequest(JANE, { payers: ['SANDBOX', 'NOSEARCH'] }),
      /payers\[1\] \(NOSEARCH\) does not take demographic searches/,
    ],
    [
      '26 payers',
      discoveryRequest(JANE, { payers: Array.from({ length: 26 }, () => 'SANDBOX') }),
      /payers must be a list of 1 to 25/,
    ],
    ['no payers', discoveryRequest(JANE, { payers: [] }), /payers must be a list of 1 to 25/],
  ];
  for (const [name, body, message] of cases) {
    test(name, async () => {
      const res = await client(svc.url, svc.apiKey).post('/api/eligibility/discovery', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'ValidationException');
      assert.match(res.body.message, message);
      assert.ok(!res.body.message.includes(JANE.lastName), 'the message echoes no patient data');
    });
  }
});

test("404: another organization's discovery answers as a missing one", async () => {
  const c = client(svc.url, svc.apiKey);
  const mine = await c.post('/api/eligibility/discovery', discoveryRequest(JANE, { payers: ['SANDBOX'] }));
  const db = svc.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  const { key } = await createApiKey(db, svc.service.keys.apiKeyPepper, {
    organizationId: other.id,
    name: 't',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  assert.equal(mine.status, 202);
  const id = mine.body.id;
  const theirs = await client(svc.url, key).get(`/api/eligibility/discovery/${id}`);
  const missing = await client(svc.url, key).get(
    '/api/eligibility/discovery/01900000-0000-7000-8000-000000000000',
  );
  const malformed = await client(svc.url, key).get('/api/eligibility/discovery/not-an-id');
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  assert.deepEqual(malformed.body, missing.body);
  assert.equal((await c.get(`/api/eligibility/discovery/${id}`)).status, 200);
});

describe('limits', () => {
  test('fan-out: a directory of 30 searching payers is asked 25 at most, in directory order', async () => {
    const c = client(svc.url, svc.apiKey);
    const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(JANE));
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const asked = await inquiries(accepted.body.id);
    assert.equal(asked.length, 25);
    assert.deepEqual(asked.slice(0, 3), ['SANDBOX', 'SEARCH01', 'SEARCH02']);
    assert.ok(!asked.includes('NOSEARCH'));
    const done = await waitForDiscovery(c, accepted.body.id);
    assert.deepEqual(done.progress, { asked: 25, answered: 25 });
    assert.equal(done.coverages.length, 25, 'every clone of the sandbox finds her');
    assert.deepEqual(
      done.coverages.slice(0, 2).map((v: { tradingPartnerServiceId: string }) => v.tradingPartnerServiceId),
      ['SANDBOX', 'SEARCH01'],
    );
  });

  test('daily cap: payers asked per organization per UTC day, 429 beyond it, also for discoveries sent at once', async () => {
    const c = client(svc.url, svc.apiKey);
    // 1 asked by the 404 test and 25 by the fan-out test: 15 are left of 41.
    const three = (i: number) =>
      discoveryRequest(JANE, { payers: [`SEARCH0${i}`, `SEARCH1${i}`, `SEARCH2${i}`] });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => c.post('/api/eligibility/discovery', three(i + 1))),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429, 429, 429], 'exactly 15 more payers asked');
    const refused = answers.find((a) => a.status === 429)!;
    assert.equal(refused.body.code, 'ThrottlingException');
    assert.match(refused.body.message, new RegExp(`${DAILY_CAP} of at most ${DAILY_CAP} payers asked`));
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const { rows } = await svc.service.store.db.query<{ n: number }>(
      'SELECT sum(asked)::int AS n FROM discoveries WHERE organization_id = $1',
      [svc.organizationId],
    );
    assert.equal(rows[0]!.n, DAILY_CAP);
    const one = await c.post('/api/eligibility/discovery', discoveryRequest(JANE, { payers: ['SANDBOX'] }));
    assert.equal(one.status, 429);
  });
});
