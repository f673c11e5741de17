/**
 * The per-organization submit limit (issue 26): an organization's keys share RATE_LIMIT_SUBMIT_PER_ORGANIZATION,
 * so creating more keys does not buy more submits, and another organization is not affected.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitSubmit: 2, rateLimitSubmitPerOrganization: 2, rateLimitStatus: 1000 },
  });
});
after(() => svc.stop());

async function keyOf(organizationId: string, name: string): Promise<string> {
  const created = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId,
    name,
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  return created.key;
}

test("an organization's keys share its submit limit; another organization keeps its own", async () => {
  const keys = [
    svc.apiKey,
    await keyOf(svc.organizationId, 'second'),
    await keyOf(svc.organizationId, 'third'),
  ];
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const otherKey = await keyOf(other.id, 'other');
  // Each key may burst 4; the organization 4 across all three.
  const results = await Promise.all(
    keys.flatMap((key) =>
      Array.from({ length: 4 }, () => client(svc.url, key).post('/api/eligibility', sandboxRequest(JANE))),
    ),
  );
  const accepted = results.filter((r) => r.status === 202).length;
  assert.ok(accepted >= 4 && accepted <= 7, `accepted ${accepted} of 12 with an organization burst of 4`);
  const refused = results.find((r) => r.status === 429)!;
  assert.equal(refused.body.code, 'ThrottlingException');
  assert.match(refused.body.message, /per organization/);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  const others = await Promise.all(
    Array.from({ length: 4 }, () => client(svc.url, otherKey).post('/api/eligibility', sandboxRequest(JANE))),
  );
  assert.deepEqual(
    others.map((r) => r.status),
    [202, 202, 202, 202],
  );
});
