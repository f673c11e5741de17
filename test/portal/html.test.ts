/** The pure pieces: the html template's escaping, value formatting, X12 line breaking. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { money, percent, x12Date, yesNo } from '../../src/portal/format.ts';
import { escapeHtml, html } from '../../src/portal/html.ts';
import { buildCheckRequest } from '../../src/portal/routes/checks-new.ts';
import { x12Lines } from '../../src/portal/views/check-detail.ts';
import { SERVICE_TYPE_CHOICES } from '../../src/portal/views/checks-new.ts';

test('html escapes every interpolated string, in text and in attributes', () => {
  const evil = `<script>alert(1)</script>" onmouseover='x' \`&`;
  const out = html`<p title="${evil}">${evil}</p>`.value;
  assert.equal(
    out,
    '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&#39;x&#39; &#96;&amp;">' +
      '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&#39;x&#39; &#96;&amp;</p>',
  );
});

test('html nests without double escaping, joins arrays and drops null, undefined and false', () => {
  const items = ['a&b', '<c>'];
  const out = html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${0}`.value;
  assert.equal(out, '<ul><li>a&amp;b</li><li>&lt;c&gt;</li></ul>0');
  assert.equal(escapeHtml('plain'), 'plain');
});

test('values read as people expect', () => {
  assert.equal(money(1500), '$1,500');
  assert.equal(money(12.5), '$12.50');
  assert.equal(percent(0.2), '20%');
  assert.equal(percent(0.125), '12.5%');
  assert.equal(x12Date('20260101-20261231'), '2026-01-01 to 2026-12-31');
  assert.equal(x12Date('20260101'), '2026-01-01');
  assert.equal(yesNo(true), 'Yes');
  assert.match(String(money(null)), /not stated/);
  assert.match(String(yesNo(null)), /not stated/);
});

test('X12 text is split one segment per line using the ISA terminator', () => {
  const isa =
    'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*^*00501*000000001*0*T*:~';
  assert.equal(isa.length, 106);
  assert.equal(x12Lines(`${isa}GS*HB~ST*271~`), `${isa}\nGS*HB~\nST*271~`);
  assert.equal(x12Lines('not x12'), 'not x12');
});

test('the run-a-check form becomes the API request: trimmed, optional parts omitted, dates normalized', () => {
  const body = buildCheckRequest({
    tradingPartnerServiceId: ' SANDBOX ',
    'provider.choice': '',
    'provider.organizationName': 'Demo Clinic',
    'provider.npi': '1234567893',
    'subscriber.memberId': 'SBX1000001 ',
    'subscriber.firstName': 'JANE',
    'subscriber.lastName': 'DOE',
    'subscriber.dateOfBirth': '1980-01-15',
    'encounter.serviceTypes': '',
    'encounter.serviceTypeCodes': 'pt, 30  MH',
    'encounter.dateOfService': '',
  });
  assert.deepEqual(body, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
    encounter: { serviceTypeCodes: ['PT', '30', 'MH'] },
  });
});

test('service types ticked by name become their X12 codes after the typed ones, each code once', () => {
  const form = {
    tradingPartnerServiceId: 'SANDBOX',
    'provider.choice': '',
    'provider.organizationName': 'Demo Clinic',
    'provider.npi': '1234567893',
    'subscriber.memberId': 'SBX1000001',
    'subscriber.firstName': 'JANE',
    'subscriber.lastName': 'DOE',
    'subscriber.dateOfBirth': '19800115',
    'encounter.serviceTypes': 'General,Preventive Nutrition,Medical Nutrition,Mental Health,Chiropractic',
    'encounter.serviceTypeCodes': 'ae, mh',
    'encounter.dateOfService': '',
  };
  assert.deepEqual(buildCheckRequest(form).encounter, { serviceTypeCodes: ['AE', 'MH', '30', '98', '33'] });
  const everyName = SERVICE_TYPE_CHOICES.map((c) => c.name).join(',');
  assert.deepEqual(
    buildCheckRequest({ ...form, 'encounter.serviceTypes': everyName, 'encounter.serviceTypeCodes': '' })
      .encounter,
    { serviceTypeCodes: ['30', '98', 'PT', 'MH', 'AD', 'AF', '33'] },
  );
  assert.equal(
    buildCheckRequest({ ...form, 'encounter.serviceTypes': '', 'encounter.serviceTypeCodes': '' }).encounter,
    undefined,
    'nothing ticked or typed: the API default (30)',
  );
});
