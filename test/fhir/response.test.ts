/**
 * The pure mapping of src/fhir/response.ts and benefit-items.ts on checks built here: the cases the sandbox
 * does not give (a fractional coinsurance, `Not Found` entries, a purged check, a lifetime term, unknown
 * network), each resource checked by Medplum's validator.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BenefitEntry, EligibilityCheckResponse } from '../../src/contract/check-response.ts';
import { eligibilityRequestResource } from '../../src/fhir/request-resource.ts';
import { eligibilityResponseResource } from '../../src/fhir/response.ts';
import { assertValidFhir } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';

const JANE = member('SBX1000001');
const ID = '0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b';
const request = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { firstName: 'ANN', lastName: 'LEE', npi: '1234567893' },
  subscriber: JANE,
  encounter: { dateOfService: '20260315', serviceTypeCodes: ['30', 'MH'] },
};

function check(result: Partial<EligibilityCheckResponse>) {
  return {
    id: ID,
    createdAt: new Date('2026-03-15T10:00:00Z'),
    completedAt: new Date('2026-03-15T10:00:02Z'),
    request,
    result: { id: ID, status: 'COMPLETED', ...result } as EligibilityCheckResponse,
  };
}

const entry = (e: Partial<BenefitEntry>): BenefitEntry =>
  ({ serviceType: 'Mental Health', ...e }) as BenefitEntry;

test('a fractional coinsurance is a percentage string; Not Found entries have no item; no network is none; a lifetime term', () => {
  const response = eligibilityResponseResource(
    check({
      planActive: true,
      benefits: [
        entry({ coverageStatus: 'Active Coverage', inNetwork: null, coinsurance: 0.125 }),
        entry({ serviceType: 'Chiropractic', coverageStatus: 'Not Found' }),
      ],
      benefitsInformation: [{ code: 'C', timeQualifierCode: '32' } as never],
    }),
  );
  assertValidFhir(response, 'CoverageEligibilityResponse');
  const items = response.insurance?.[0]?.item ?? [];
  assert.equal(items.length, 1);
  assert.equal(items[0]!.network, undefined);
  assert.equal(items[0]!.benefit?.[0]?.allowedString, '12.5%');
  assert.equal(items[0]!.term?.coding?.[0]?.code, 'lifetime');
});

test('remaining above the allowed amount gives no used amount; a calendar year is an annual term', () => {
  const response = eligibilityResponseResource(
    check({
      planActive: true,
      benefits: [
        entry({
          coverageStatus: 'Active Coverage',
          inNetwork: false,
          deductible: 100,
          deductibleRemaining: 150,
        }),
      ],
      benefitsInformation: [{ code: 'G', timeQualifierCode: '23' } as never],
    }),
  );
  assertValidFhir(response, 'CoverageEligibilityResponse');
  const item = response.insurance![0]!.item![0]!;
  assert.deepEqual(item.benefit, [
    {
      type: {
        coding: [
          { system: 'http://terminology.hl7.org/CodeSystem/benefit-type', code: 'deductible' },
          { system: 'https://codesystem.x12.org/005010/1390', code: 'C' },
        ],
        text: 'Deductible',
      },
      allowedMoney: { value: 100, currency: 'USD' },
    },
  ]);
  assert.equal(item.network?.coding?.[0]?.code, 'out');
  assert.equal(item.term?.coding?.[0]?.code, 'annual');
});

test('a Practitioner provider, the date of service and the request read back as stored', () => {
  const stored = eligibilityRequestResource(check({}));
  assertValidFhir(stored, 'CoverageEligibilityRequest');
  assert.equal(stored.servicedDate, '2026-03-15');
  assert.deepEqual(
    stored.item?.map((i) => i.category?.coding?.[0]?.code),
    ['30', 'MH'],
  );
  assert.equal(stored.contained?.find((r) => r.id === 'provider')?.resourceType, 'Practitioner');
});

test('a FAILED check: outcome error, no insurance (and no contained coverage), the errors with their systems', () => {
  const response = eligibilityResponseResource(
    check({
      status: 'FAILED',
      verdict: { status: 'FAILED', summary: 'Could not check: Payer not supported', reason: 'SH01' },
      errors: [
        { code: 'SH01', description: 'Payer not supported' },
        { code: '75', description: 'Subscriber/Insured not found' },
      ] as never,
    }),
  );
  assertValidFhir(response, 'CoverageEligibilityResponse');
  assert.equal(response.outcome, 'error');
  assert.equal(response.insurance, undefined);
  assert.ok(!response.contained?.some((r) => r.resourceType === 'Coverage'));
  assert.deepEqual(
    response.error?.map((e) => [e.code.coding?.[0]?.system, e.code.coding?.[0]?.code]),
    [
      ['urn:eligibility-service:check-error', 'SH01'],
      ['https://codesystem.x12.org/005010/901', '75'],
    ],
  );
  assert.deepEqual(response.extension, [
    { url: 'urn:eligibility-service:extension:verdict', valueCode: 'FAILED' },
  ]);
});

test('a purged check (its request reduced to the payer id) still maps to valid resources', () => {
  const purged = {
    ...check({ status: 'FAILED', errors: [{ code: '67', description: 'Patient not found' }] as never }),
    request: { tradingPartnerServiceId: 'SANDBOX' },
  };
  const response = eligibilityResponseResource(purged);
  assertValidFhir(response, 'CoverageEligibilityResponse');
  assert.deepEqual(response.contained?.[0], { resourceType: 'Patient', id: 'patient' });
  assertValidFhir(eligibilityRequestResource(purged), 'CoverageEligibilityRequest');
});
