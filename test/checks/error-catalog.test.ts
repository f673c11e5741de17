/** The error table (src/checks/error-catalog.ts): complete, the spec's codes exact, every entry actionable. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ERROR_CATALOG,
  requestFieldOf,
  serviceError,
  UNKNOWN_CODE_RESOLUTIONS,
  withGuidance,
} from '../../src/checks/error-catalog.ts';
import { EligibilityCheckRequest } from '../../src/contract/check-request.ts';
import { AAA03_BY_LOOP, AAA03_REJECT_REASONS } from '../../src/x12/codes.ts';

/** The contract's table (docs/contract.md "Check outcome errors"), copied here on purpose: the code must not drift. */
const SPEC_TABLE: [string, string, string][] = [
  ['67', 'Patient not found', 'Please Correct and Resubmit'],
  [
    '71',
    'Patient Birth Date Does Not Match That for the Patient on the Database',
    'Please Correct and Resubmit',
  ],
  ['72', 'Invalid/Missing subscriber/insured ID', 'Please Correct and Resubmit'],
  ['73', 'Invalid/Missing subscriber/insured name', 'Please Correct and Resubmit'],
  ['75', 'Subscriber/Insured not found', 'Please Correct and Resubmit'],
  ['77', 'Subscriber found, patient not found', 'Please Correct and Resubmit'],
  ['SH01', 'Payer not supported', 'Resubmission Not Allowed'],
  ['SH02', 'Payer portal check did not complete', 'Resubmission Allowed'],
];

test("the spec's eight codes keep their exact descriptions and follow-up actions", () => {
  for (const [code, description, followupAction] of SPEC_TABLE) {
    const g = ERROR_CATALOG.get(code);
    assert.ok(g, code);
    assert.equal(g.description, description, code);
    assert.equal(g.followupAction, followupAction, code);
  }
});

test('every AAA03 code 005010X279A1 allows in any loop of a 271 is in the table', () => {
  const allowed = new Set(Object.values(AAA03_BY_LOOP).flat());
  // The loops named in issue 16, each with its codes.
  for (const loop of ['2000A', '2100A', '2100B', '2100C', '2110C', '2100D', '2110D'])
    assert.ok(AAA03_BY_LOOP[loop]?.length, loop);
  const named = [
    '04',
    '15',
    '33',
    '35',
    ...range(41, 58),
    ...range(60, 80),
    '97',
    'AA',
    'AE',
    'AF',
    'AG',
    'AO',
    'CI',
    'E8',
    'IA',
    'MA',
    'T4',
  ];
  for (const code of named) assert.ok(allowed.has(code), `${code} is allowed somewhere`);
  assert.deepEqual([...allowed].sort(), Object.keys(AAA03_REJECT_REASONS).sort());
  for (const code of allowed) assert.equal(ERROR_CATALOG.get(code)?.source, 'AAA', code);
});

test('every entry has a description, a follow-up action and resolutions in words', () => {
  const codes = [...ERROR_CATALOG.keys()];
  assert.deepEqual(
    codes.filter((c) => c.startsWith('SH')),
    ['SH01', 'SH02', 'SH03', 'SH04'],
  );
  for (const g of ERROR_CATALOG.values()) {
    assert.ok(g.description.length > 3, g.code);
    assert.ok(g.followupAction.length > 3, g.code);
    assert.ok(g.possibleResolutions.length >= 40, `${g.code} resolutions say what to do`);
    assert.match(g.possibleResolutions, /^[A-Z].*[.)]$/s, g.code);
  }
});

test('the request field an error points at is a real field of the request', () => {
  assert.equal(requestFieldOf('72'), 'subscriber.memberId');
  assert.equal(requestFieldOf('73'), 'subscriber.lastName');
  assert.equal(requestFieldOf('71'), 'subscriber.dateOfBirth');
  assert.equal(requestFieldOf('58'), 'subscriber.dateOfBirth');
  for (const provider of ['43', '51', '50']) assert.equal(requestFieldOf(provider), 'provider.npi');
  assert.equal(requestFieldOf('57'), 'encounter.dateOfService');
  assert.equal(requestFieldOf('SH01'), 'tradingPartnerServiceId');
  assert.equal(requestFieldOf('67'), 'subscriber.lastName');
  assert.equal(requestFieldOf('42'), undefined, 'a payer outage is nobody’s typo');
  assert.equal(requestFieldOf('SH02'), undefined);
  assert.equal(requestFieldOf('RC'), undefined);
  const schema = EligibilityCheckRequest as unknown as {
    properties: Record<string, { properties?: object }>;
  };
  for (const g of ERROR_CATALOG.values()) {
    if (!g.requestField) continue;
    const [part, key] = g.requestField.split('.');
    const known = key
      ? Object.keys(schema.properties[part!]?.properties ?? {})
      : Object.keys(schema.properties);
    assert.ok(known.includes(key ?? part!), `${g.code}: ${g.requestField}`);
  }
});

test("an error as carried: the table's resolutions, the payer's own follow-up action kept", () => {
  const spec = withGuidance({
    code: '72',
    description: 'Invalid/Missing subscriber/insured ID',
    field: 'AAA',
  });
  assert.equal(spec.followupAction, 'Please Correct and Resubmit');
  assert.equal(spec.possibleResolutions, ERROR_CATALOG.get('72')!.possibleResolutions);
  assert.match(spec.possibleResolutions!, /Check the member id on the card/);
  const payerSaid = withGuidance({
    code: '51',
    description: 'Provider not on file',
    followupAction: 'Resubmission Not Allowed',
  });
  assert.equal(payerSaid.followupAction, 'Resubmission Not Allowed');
  const unknown = withGuidance({ code: 'RC', description: 'Reject reason RC' });
  assert.equal(unknown.possibleResolutions, UNKNOWN_CODE_RESOLUTIONS);
  assert.equal(unknown.followupAction, undefined);
  // Resolutions written for one occurrence (a 999's position) are kept.
  const written = withGuidance({
    ...serviceError('SH04'),
    possibleResolutions: 'Correct subscriber.memberId.',
  });
  assert.equal(written.possibleResolutions, 'Correct subscriber.memberId.');
});

test('service errors come from the table, with the field the API has always sent', () => {
  assert.deepEqual(serviceError('SH01'), {
    code: 'SH01',
    description: 'Payer not supported',
    followupAction: 'Resubmission Not Allowed',
    field: 'SERVICE',
    possibleResolutions: ERROR_CATALOG.get('SH01')!.possibleResolutions,
  });
  assert.equal(serviceError('SH04').field, 'X12');
});

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}
