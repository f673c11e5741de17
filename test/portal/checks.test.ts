/**
 * Checks in the portal: the run-a-check form (same validation as the API, PHI only in POST bodies), the
 * detail page as a person reads it, the list (masked member ids, filters, pages), tenant isolation, and no
 * PHI in the logs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { PRODUCT_SERVICE_TYPES } from '../../src/contract/check-response.ts';
import { createPayerDirectory, sandboxPayerEntry } from '../../src/payers/directory.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { queueTestEvent } from '../../src/webhooks/deliveries.ts';
import { member } from '../helpers/members.ts';
import {
  type PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
  waitForCheck,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;
let janeCheck: string;
/** The run-a-check form's fields for a sandbox member, the date as a date input sends it. */
function formFor(memberId: string): Record<string, string> {
  const { firstName, lastName, dateOfBirth: d } = member(memberId);
  return {
    'subscriber.memberId': memberId,
    'subscriber.firstName': firstName,
    'subscriber.lastName': lastName,
    'subscriber.dateOfBirth': `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`,
  };
}
const JANE = {
  tradingPartnerServiceId: 'SANDBOX',
  'provider.organizationName': 'Demo Clinic',
  'provider.npi': '1234567893',
  ...formFor('SBX1000001'),
};

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

test('the form shows field errors from the same validation as the API, keeping what was typed', async () => {
  const res = await owner.submit('/portal/checks/new', '/portal/checks/new', {
    ...JANE,
    'provider.npi': '1234567890',
    'subscriber.memberId': '',
    'subscriber.dateOfBirth': '19801345',
    'encounter.serviceTypeCodes': '30, ZZ',
  });
  assert.equal(res.status, 400);
  assert.match(res.text, /There is a problem/);
  assert.match(res.text, /Provider NPI has an invalid check digit/);
  assert.match(res.text, /Member id is required/);
  assert.match(res.text, /Date of birth is not a real date/);
  assert.match(res.text, /Other service type codes \(code 2\) is not a known X12 service type code/);
  assert.match(
    res.text,
    /id="f-provider-npi"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-provider-npi"/,
  );
  assert.match(res.text, /value="JANE"/, 'typed values kept');
  const { rows } = await h.service.store.db.query('SELECT 1 FROM checks');
  assert.equal(rows.length, 0, 'nothing submitted');
});

test('the form picks the payer by name from the directory, the sandbox first and chosen', async () => {
  const page = await owner.get('/portal/checks/new');
  const select =
    /<select id="f-tradingPartnerServiceId" name="tradingPartnerServiceId" required>([\s\S]*?)<\/select>/.exec(
      page.text,
    );
  assert.ok(select, 'a select named tradingPartnerServiceId');
  assert.deepEqual(
    [...select[1]!.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]),
    [['SANDBOX', ' selected', 'Sandbox Health Plan (SANDBOX)']],
  );
  assert.match(page.text, /<label for="f-tradingPartnerServiceId">Payer<\/label>/);
});

test('with configured payers: sandbox first, others by name; an alias is stored under the canonical id', async () => {
  const stub = (name: string) => ({ name, send: async () => '' });
  const directory = createPayerDirectory([
    sandboxPayerEntry(stub('sandbox')),
    { tradingPartnerServiceId: 'ZED', payerName: 'Zed Mutual', payerId: 'Z', connector: stub('x12-json') },
    {
      tradingPartnerServiceId: 'ACME',
      payerName: 'Acme Health',
      payerId: 'A',
      aliases: ['87726'],
      connector: stub('x12-json'),
    },
  ]);
  const other = await h.listenPortal({ payers: directory });
  try {
    const client = await signIn(other.url, h.ownerEmail);
    const page = await client.get('/portal/checks/new');
    assert.deepEqual(
      [...page.text.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]),
      ['SANDBOX', 'ACME', 'ZED'],
    );
    const res = await client.submit('/portal/checks/new', '/portal/checks/new', {
      ...JANE,
      // Another member, so the list test below still finds only its own checks by member.
      'subscriber.memberId': 'ALIAS0042',
      tradingPartnerServiceId: '87726',
    });
    assert.equal(res.status, 303);
    const id = res.location!.split('/').pop()!;
    const { rows } = await h.service.store.db.query<{ trading_partner_service_id: string }>(
      'SELECT trading_partner_service_id FROM checks WHERE id = $1',
      [id],
    );
    assert.equal(rows[0]!.trading_partner_service_id, 'ACME');
    const missing = await client.submit('/portal/checks/new', '/portal/checks/new', {
      ...JANE,
      tradingPartnerServiceId: '',
    });
    assert.equal(missing.status, 400);
    assert.match(missing.text, /Payer is required/);
    assert.match(missing.text, /<option value="" selected>Choose a payer<\/option>/);
  } finally {
    await other.close();
  }
});

test('a directory of thousands is offered as a text field with a list, not an unusable select', async () => {
  const entries = Array.from({ length: 250 }, (_, i) => ({
    tradingPartnerServiceId: `P${i}`,
    payerName: `Payer ${i}`,
    payerId: `P${i}`,
    connector: { name: 'x12-json', send: async () => '' },
  }));
  const other = await h.listenPortal({ payers: createPayerDirectory(entries) });
  try {
    const page = await (await signIn(other.url, h.ownerEmail)).get('/portal/checks/new');
    assert.doesNotMatch(page.text, /<select id="f-tradingPartnerServiceId"/);
    assert.match(
      page.text,
      /<input id="f-tradingPartnerServiceId" name="tradingPartnerServiceId" type="text" value="" required autocomplete="off" list="f-tradingPartnerServiceId-list"/,
    );
    assert.equal((page.text.match(/<option value="P\d+" label="Payer \d+">/g) ?? []).length, 250);
  } finally {
    await other.close();
  }
});

test('a valid form submits a check and redirects to its page by id only', async () => {
  const res = await owner.submit('/portal/checks/new', '/portal/checks/new', JANE);
  assert.equal(res.status, 303);
  const m = /^\/portal\/checks\/([0-9a-f-]{36})$/.exec(res.location ?? '');
  assert.ok(m, `redirect ${res.location}`);
  janeCheck = m[1]!;
  const page = await owner.get(res.location!);
  assert.equal(page.status, 200);
  assert.match(page.text, /SBX1000001/);
  assert.equal(await waitForCheck(h, janeCheck), 'COMPLETED');
});

test('the detail page reads like a benefits summary', async () => {
  const page = await owner.get(`/portal/checks/${janeCheck}`);
  const text = page.text;
  assert.doesNotMatch(text, /http-equiv="refresh"/, 'no reload once finished');
  assert.match(text, /Sandbox PPO Gold/);
  assert.match(text, /2026-01-01 to 2026-12-31/);
  assert.match(text, /In Network/);
  const table = /<table class="benefits">([\s\S]*?)<\/table>/.exec(text)?.[1];
  assert.ok(table, 'benefits table');
  for (const type of PRODUCT_SERVICE_TYPES) assert.match(table, new RegExp(`<th scope="row">${type}</th>`));
  assert.equal((table.match(/<tr class="entry">/g) ?? []).length, PRODUCT_SERVICE_TYPES.length);
  assert.equal((table.match(/<tr class="why">/g) ?? []).length, PRODUCT_SERVICE_TYPES.length);
  assert.match(table, /Active Coverage/);
  const amounts = /<table class="plan-amounts">([\s\S]*?)<\/table>/.exec(text)?.[1] ?? '';
  assert.match(amounts, /\$1,500<br><span class="muted">\$500 left/, 'deductible and remaining, once');
  assert.doesNotMatch(table, /\$1,500/, 'not repeated on every service row');
  assert.match(table, /<td>20%<\/td>/, 'coinsurance as a percentage');
  assert.match(table, /Confidence <strong>\d+%<\/strong>: \w/, 'confidence score and criteria');
  assert.match(text, /All service types matched directly/, 'overall criteria in words');
  assert.match(text, /<details><summary>JSON/);
  assert.match(text, /<details><summary>X12 271/);
  assert.match(text, /ISA\*/);
});

test('the detail page of a check in progress reloads itself', async () => {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: member('SBX1000009'),
  });
  assert.ok(sub.ok);
  const page = await owner.get(`/portal/checks/${sub.id}`);
  assert.match(page.text, /<meta http-equiv="refresh" content="3">/);
  assert.match(page.text, /In progress/);
});

test('a failed check shows its errors with the follow-up action', async () => {
  const res = await owner.submit('/portal/checks/new', '/portal/checks/new', {
    ...JANE,
    ...formFor('SBX1000067'),
  });
  const id = res.location!.split('/').pop()!;
  assert.equal(await waitForCheck(h, id), 'FAILED');
  const page = await owner.get(res.location!);
  assert.match(page.text, /<code>67<\/code>/);
  assert.match(page.text, /Patient not found/);
  assert.match(page.text, /Please Correct and Resubmit/);
  assert.doesNotMatch(page.text, /class="benefits"/);
});

test('the list masks member ids, filters and pages with next', async () => {
  const list = await owner.get('/portal/checks');
  assert.equal(list.status, 200);
  assert.match(list.text, /••••0001/);
  assert.doesNotMatch(list.text, /SBX1000001/, 'no whole member id');
  // Issue 16: the organization's own signed-in users see whose check it is (checks-search.test.ts).
  assert.match(list.text, /DOE, JANE/);
  const failed = await owner.get('/portal/checks?status=FAILED');
  assert.match(failed.text, /••••0067/);
  assert.doesNotMatch(failed.text, /••••0001/);
  const otherPayer = await owner.get('/portal/checks?payer=NOPE');
  assert.match(otherPayer.text, /No checks match/);
  const today = new Date().toISOString().slice(0, 10);
  assert.match((await owner.get(`/portal/checks?from=${today}&to=${today}`)).text, /••••0001/);
  assert.match((await owner.get('/portal/checks?to=2000-01-01')).text, /No checks match/);

  // 26+ checks: the first page has 25 and a link to older ones.
  for (let i = 0; i < 26; i++) {
    await submitCheck(h.service.store.db, h.organizationId, {
      tradingPartnerServiceId: 'NOPE',
      provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
      subscriber: {
        memberId: `PAGE${String(i).padStart(4, '0')}`,
        firstName: 'A',
        lastName: 'B',
        dateOfBirth: '19900101',
      },
    });
  }
  const first = await owner.get('/portal/checks?payer=NOPE');
  assert.equal((first.text.match(/<tr>/g) ?? []).length, 26, 'header + 25 rows');
  assert.match(first.text, /••••0025/, 'newest first');
  const older = /href="(\/portal\/checks\?payer=NOPE&amp;before=[0-9a-f-]{36})">Older checks/.exec(
    first.text,
  )?.[1];
  assert.ok(older, 'next link keeps the filter');
  const second = await owner.get(older.replace(/&amp;/g, '&'));
  assert.match(second.text, /••••0000/);
  assert.doesNotMatch(second.text, /••••0025/);
  assert.doesNotMatch(second.text, /Older checks/);
});

test('another organization sees 404 pages for our check, key and delivery', async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, { organizationId: other.id, email: 'owner@other.example', role: 'owner' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');

  const check = await stranger.get(`/portal/checks/${janeCheck}`);
  assert.equal(check.status, 404);
  assert.match(check.text, /Page not found/);
  assert.doesNotMatch(check.text, /SBX1000001|JANE/);
  assert.doesNotMatch((await stranger.get('/portal/checks')).text, /••••0001/);

  const { record } = await createApiKey(db, h.service.keys.apiKeyPepper, {
    organizationId: h.organizationId,
    name: 'ours',
    scopes: ['eligibility:read'],
    mode: 'test',
  });
  assert.equal((await stranger.get(`/portal/settings/api-keys/${record.id}/revoke`)).status, 404);
  const token = /name="_csrf" value="([^"]+)"/.exec((await stranger.get('/portal/checks')).text)![1]!;
  assert.equal(
    (await stranger.post(`/portal/settings/api-keys/${record.id}/revoke`, { _csrf: token })).status,
    404,
  );
  const still = await db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [record.id]);
  assert.equal(still.rows[0]!.revoked_at, null);

  await db.query("UPDATE organizations SET webhook_url = 'http://127.0.0.1:9/hook' WHERE id = $1", [
    h.organizationId,
  ]);
  const event = await queueTestEvent(db, h.organizationId);
  assert.ok('eventId' in event);
  assert.equal((await stranger.get(`/portal/settings/webhooks/deliveries/${event.eventId}`)).status, 404);
  assert.equal(
    (await stranger.post(`/portal/settings/webhooks/deliveries/${event.eventId}/resend`, { _csrf: token }))
      .status,
    404,
  );
  assert.equal((await stranger.get('/portal/checks/not-a-uuid')).status, 404);
});

test('no PHI reaches the logs', async () => {
  const text = h.logs.text;
  assert.ok(text.includes('check submitted from the portal'), 'portal actions are logged');
  for (const phi of ['SBX1000001', 'JANE', '19800115', '1980-01-15', 'SBX1000067', 'PERSON']) {
    assert.ok(!text.includes(phi), `logs contain ${phi}`);
  }
  assert.ok(!text.includes('owner@demo-clinic.example'), 'no emails either');
});
