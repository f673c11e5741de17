/**
 * The portal's "Find coverage" (docs/discovery.md): the form submits a discovery exactly as the API does,
 * the discovery's page shows progress and then the coverage found, linking to its check; a refused form
 * says why and keeps what was typed; another organization's discovery is a 404 page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { type PortalClient, type PortalHarness, signInWithLink, startPortal } from './helpers.ts';

const JANE = member('SBX1000001');
let h: PortalHarness;
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

const form = (over: Record<string, string> = {}) => ({
  'provider.organizationName': 'Demo Clinic',
  'provider.npi': '1234567893',
  'patient.firstName': JANE.firstName,
  'patient.lastName': JANE.lastName,
  'patient.dateOfBirth': JANE.dateOfBirth,
  ...over,
});

let found: string;

test('Find coverage finds a sandbox member by name and date of birth and links the check', async () => {
  const page = await owner.get('/portal/discovery/new');
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>Find coverage<\/h1>/);
  assert.match(page.text, /aria-current="page">Find coverage</);
  const res = await owner.submit('/portal/discovery/new', '/portal/discovery/new', form());
  assert.equal(res.status, 303, res.text);
  assert.match(res.location ?? '', /^\/portal\/discovery\/[0-9a-f-]{36}$/);
  found = res.location!;
  const done = await eventually(async () => {
    const p = await owner.get(found);
    return p.text.includes('Find coverage: finished') ? p : undefined;
  });
  assert.doesNotMatch(done.text, /http-equiv="refresh"/, 'a finished discovery stops reloading');
  assert.match(done.text, /1 of 1 payer answered/);
  assert.match(done.text, /ACTIVE: Coverage active: Sandbox PPO Gold/);
  const checkId = /href="\/portal\/checks\/([0-9a-f-]{36})"/.exec(done.text)?.[1];
  assert.ok(checkId);
  const check = await owner.get(`/portal/checks/${checkId}`);
  assert.equal(check.status, 200);
  assert.match(check.text, /SBX1000001/, "the check's page shows the member id the payer answered with");
});

test('a refused form says why and keeps what was typed', async () => {
  const res = await owner.submit(
    '/portal/discovery/new',
    '/portal/discovery/new',
    form({ 'provider.npi': '1234567890' }),
  );
  assert.equal(res.status, 400);
  assert.match(res.text, /provider\.npi has an invalid check digit/);
  assert.match(res.text, new RegExp(`value="${JANE.lastName}"`));
});

test("another organization's discovery is a 404 page", async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, {
    organizationId: other.id,
    email: 'owner@other-discovery.example',
    role: 'owner',
  });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other-discovery.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  const page = await stranger.get(found);
  assert.equal(page.status, 404);
  assert.doesNotMatch(page.text, /Sandbox PPO Gold/);
});

test('an owner keeps the discovery payers on Settings > Organization; a payer that cannot search is refused', async () => {
  const refused = await owner.submit(
    '/portal/settings/organization',
    '/portal/settings/organization/discovery-payers',
    {
      discoveryPayers: 'SANDBOX, NOPE',
    },
  );
  assert.equal(refused.status, 400);
  assert.match(refused.text, /payer\[1\] is not a payer of the directory/);
  const saved = await owner.submit(
    '/portal/settings/organization',
    '/portal/settings/organization/discovery-payers',
    {
      discoveryPayers: 'SANDBOX',
    },
  );
  assert.equal(saved.status, 303);
  const page = await owner.get('/portal/settings/organization');
  assert.match(page.text, /Now: <strong>SANDBOX<\/strong>/);
  const { rows } = await h.service.store.db.query<{ discovery_payers: string[] | null }>(
    'SELECT discovery_payers FROM organizations WHERE id = $1',
    [h.organizationId],
  );
  assert.deepEqual(rows[0]!.discovery_payers, ['SANDBOX']);
  // A discovery without payers now asks the organization's list.
  const res = await owner.submit('/portal/discovery/new', '/portal/discovery/new', form());
  assert.equal(res.status, 303);
  const id = res.location!.split('/').pop();
  const asked = await h.service.store.db.query<{ trading_partner_service_id: string }>(
    'SELECT trading_partner_service_id FROM checks WHERE discovery_id = $1',
    [id],
  );
  assert.deepEqual(
    asked.rows.map((r) => r.trading_partner_service_id),
    ['SANDBOX'],
  );
  const cleared = await owner.submit(
    '/portal/settings/organization',
    '/portal/settings/organization/discovery-payers',
    {
      discoveryPayers: '',
    },
  );
  assert.equal(cleared.status, 303);
  assert.match(
    (await owner.get('/portal/settings/organization')).text,
    /every payer of the directory that takes demographic searches/,
  );
});
