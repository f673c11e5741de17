/**
 * The views of the organization's providers (issue 26 item 13): the list and add form on Settings >
 * Organization, and the provider picker and service type boxes of "Run a check". Names are the owner's
 * text and come back escaped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIELDS, runPage, SERVICE_TYPE_CHOICES, type Values } from '../../src/portal/views/checks-new.ts';
import { providersSection } from '../../src/portal/views/organization-providers.ts';
import type { OrganizationProvider } from '../../src/tenancy/providers.ts';
import type { PortalSession } from '../../src/tenancy/sessions.ts';

const EVIL = `<script>alert("x")</script>`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;';

function session(): PortalSession {
  return {
    idHash: 'hash',
    user: { id: 'usr_me', organizationId: 'org_1', email: 'me@clinic.example', role: 'owner' },
    organizationName: 'Demo Clinic',
    organizationTimeZone: null,
    csrfToken: 'csrf-token',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
  };
}

const LISTED: OrganizationProvider[] = [
  { name: 'Demo Clinic', npi: '1234567893', isDefault: false },
  { name: EVIL, npi: '9876543213', isDefault: true },
];
const BLANK = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, ''])) as Values;
const PAYERS = [
  { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [], connectorType: 'sandbox' as const },
];

test('providers section: each provider escaped with its buttons, the default marked, the add form', () => {
  const out = providersSection(session(), LISTED).value;
  assert.ok(!out.includes(EVIL));
  assert.ok(out.includes(`<td>${ESCAPED}</td><td class="mono">9876543213</td><td><strong>Default</strong>`));
  assert.match(
    out,
    /<td>Demo Clinic<\/td><td class="mono">1234567893<\/td><td><form method="post" action="\/portal\/settings\/organization\/providers\/default"/,
  );
  assert.equal(
    (out.match(/name="_csrf" value="csrf-token"/g) ?? []).length,
    4,
    'make default, 2 removes, add',
  );
  assert.match(out, /<input type="hidden" name="npi" value="1234567893">/);
  assert.doesNotMatch(
    out,
    /name="providerIsDefault" value="yes" checked/,
    'a later one is not the default unless asked',
  );
  const empty = providersSection(session(), []).value;
  assert.match(empty, /No providers yet/);
  assert.match(empty, /name="providerIsDefault" value="yes" checked/, 'the first one is the default');
});

test('providers section: a refused add shows its problem on the field and what was typed, escaped', () => {
  const out = providersSection(session(), LISTED, {
    errors: [{ field: 'providerNpi', message: 'Enter the 10-digit NPI, e.g. 1234567893.' }],
    name: EVIL,
    npi: '12',
    isDefault: true,
  }).value;
  assert.match(out, /<a href="#f-providerNpi">Enter the 10-digit NPI/);
  assert.ok(out.includes(`name="providerName" type="text" value="${ESCAPED}"`));
  assert.match(out, /id="f-providerNpi" name="providerNpi" type="text" value="12"[^>]*aria-invalid="true"/);
  assert.match(out, /name="providerIsDefault" value="yes" checked/);
});

test('providers section: a full list offers no add form', () => {
  const full = Array.from({ length: 20 }, (_, i) => ({
    name: `P${i}`,
    npi: `${1000000000 + i}`,
    isDefault: i === 0,
  }));
  const out = providersSection(session(), full).value;
  assert.match(out, /The list is full/);
  assert.doesNotMatch(out, /Add provider/);
});

test('run a check: providers by name (escaped) with the chosen one selected; the typed fields become optional', () => {
  const out = runPage(
    session(),
    PAYERS,
    { ...BLANK, 'provider.choice': '9876543213' },
    [],
    undefined,
    LISTED,
  ).value;
  assert.ok(!out.includes(EVIL));
  assert.ok(out.includes(`<option value="9876543213" selected>${ESCAPED} (NPI 9876543213)</option>`));
  assert.match(out, /<option value="other">Other provider \(type below\)<\/option><\/select>/);
  assert.match(out, /<label for="f-provider-npi">Provider NPI <span class="muted">\(optional\)<\/span>/);
  const plain = runPage(session(), PAYERS, BLANK, []).value;
  assert.doesNotMatch(plain, /provider\.choice/);
  assert.match(plain, /name="provider.npi" type="text" value="" required/);
});

test('run a check: the service type boxes name each type with its code; ticked ones stay ticked', () => {
  assert.deepEqual(
    SERVICE_TYPE_CHOICES.map((c) => `${c.name}=${c.code}`),
    [
      'General=30',
      'Preventive Nutrition=98',
      'Medical Nutrition=98',
      'Outpatient Physical Therapy=PT',
      'Mental Health=MH',
      'Occupational Therapy=AD',
      'Speech Therapy=AF',
      'Chiropractic=33',
    ],
  );
  const out = runPage(
    session(),
    PAYERS,
    { ...BLANK, 'encounter.serviceTypes': 'General,Chiropractic' },
    [],
  ).value;
  assert.deepEqual(
    [...out.matchAll(/value="([^"]+)" checked><label for="f-encounter-serviceTypes-\d">([^<]+)/g)].map(
      (m) => [m[1], m[2]],
    ),
    [
      ['General', 'General (plan coverage) '],
      ['Chiropractic', 'Chiropractic '],
    ],
  );
  assert.match(out, /Chiropractic <span class="muted">\(33\)<\/span>/);
});
