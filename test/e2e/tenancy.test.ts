/**
 * Tenancy matrix: every API endpoint × (own key, other organization's key, revoked key, no key, read-only
 * key, write-only key) answers the expected status, and no answer carries another organization's data.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey, revokeApiKey, type Scope } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

let svc: TestService;
const keys: Record<string, string | undefined> = {};
let ownCheck: string;

before(async () => {
  svc = await startTestService();
  const db = svc.service.store.db;
  const pepper = svc.service.keys.apiKeyPepper;
  const make = async (org: string, scopes: Scope[]) =>
    (await createApiKey(db, pepper, { organizationId: org, name: 'm', scopes, mode: 'test' })).key;
  const other = await createOrganization(db, 'Other Clinic');
  keys.own = svc.apiKey;
  keys.other = await make(other.id, ['eligibility:read', 'eligibility:write']);
  keys.readOnly = await make(svc.organizationId, ['eligibility:read']);
  keys.writeOnly = await make(svc.organizationId, ['eligibility:write']);
  keys.revoked = await make(svc.organizationId, ['eligibility:read', 'eligibility:write']);
  const { rows } = await db.query<{ id: string }>('SELECT id FROM api_keys WHERE prefix = $1', [
    keys.revoked.slice(0, 18),
  ]);
  await revokeApiKey(db, svc.organizationId, rows[0]!.id);
  keys.none = undefined;
  const c = client(svc.url, svc.apiKey);
  ownCheck = (await c.post('/api/eligibility', sandboxRequest(member('SBX1000001')))).body.id;
  await waitForResult(c, ownCheck);
});
after(() => svc.stop());

const MATRIX: {
  endpoint: string;
  call: (key: string | undefined) => Promise<{ status: number; body: any }>;
  expected: Record<string, number>;
}[] = [
  {
    endpoint: 'POST /api/eligibility',
    call: (key) => client(svc.url, key).post('/api/eligibility', sandboxRequest(member('SBX1000002'))),
    expected: { own: 202, other: 202, readOnly: 403, writeOnly: 202, revoked: 401, none: 401 },
  },
  {
    endpoint: 'GET /api/eligibility/{own check}/status',
    call: (key) => client(svc.url, key).get(`/api/eligibility/${ownCheck}/status`),
    expected: { own: 200, other: 404, readOnly: 200, writeOnly: 403, revoked: 401, none: 401 },
  },
];

for (const row of MATRIX) {
  for (const [who, status] of Object.entries(row.expected)) {
    test(`${row.endpoint} with ${who} key → ${status}`, async () => {
      const res = await row.call(keys[who]);
      assert.equal(res.status, status, JSON.stringify(res.body));
      if (status >= 400) assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message']);
      if (who === 'other')
        assert.ok(!JSON.stringify(res.body).includes('JANE'), 'no data of another organization');
    });
  }
}
