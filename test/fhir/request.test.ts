/** The pure reading of src/fhir/request.ts: what becomes the contract's request, and where each field came from. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expressionOf, readEligibilityRequest } from '../../src/fhir/request.ts';
import { eligibilityRequestFor } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';

const JANE = member('SBX1000001');

test('a request with everything contained reads as the contract request', () => {
  const reading = readEligibilityRequest(
    eligibilityRequestFor(JANE, { serviceTypes: ['MH', 'PT', 'MH'], servicedDate: '2026-05-01' }),
  );
  assert.ok(reading.ok);
  assert.deepEqual(reading.body, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { npi: '1234567893', organizationName: 'Test Clinic', providerType: 'facility' },
    subscriber: { ...JANE },
    encounter: { serviceTypeCodes: ['MH', 'PT'], dateOfService: '20260501' },
  });
  assert.equal(
    expressionOf('subscriber.lastName', reading.fieldOrigins),
    'CoverageEligibilityRequest.contained[0].name[0].family',
  );
  assert.equal(
    expressionOf('encounter.serviceTypeCodes[1]', reading.fieldOrigins),
    'CoverageEligibilityRequest.item[1].category',
  );
  assert.equal(
    expressionOf('provider.lastName', reading.fieldOrigins),
    'CoverageEligibilityRequest.contained[1]',
  );
  assert.equal(expressionOf('nothing.known', reading.fieldOrigins), 'CoverageEligibilityRequest');
});

test('a Practitioner provider gives first and last name; middle name and gender are read', () => {
  const request: any = eligibilityRequestFor(JANE);
  request.contained[0].name[0].given.push('Q');
  request.contained[0].gender = 'female';
  request.contained[1] = {
    resourceType: 'Practitioner',
    id: 'clinic',
    name: [{ family: 'LEE', given: ['ANN'] }],
    identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' }],
  };
  const reading = readEligibilityRequest(request);
  assert.ok(reading.ok);
  assert.deepEqual(reading.body.provider, {
    npi: '1234567893',
    firstName: 'ANN',
    lastName: 'LEE',
    providerType: 'provider',
  });
  assert.equal(reading.body.subscriber.middleName, 'Q');
  assert.equal(reading.body.subscriber.gender, 'F');
});

test('the focal insurance is read, whatever its place; a reference to a missing or wrong contained resource is named', () => {
  const request: any = eligibilityRequestFor(JANE);
  request.insurance = [
    { coverage: { reference: '#nothing' } },
    { focal: true, coverage: { reference: '#cov' } },
  ];
  assert.ok(readEligibilityRequest(request).ok);
  request.insurance = [{ focal: true, coverage: { reference: '#pat' } }];
  const wrong = readEligibilityRequest(request);
  assert.ok(!wrong.ok);
  assert.deepEqual(
    wrong.issues.map((i) => [i.code, i.expression]),
    [['invalid', 'CoverageEligibilityRequest.insurance[0].coverage.reference']],
  );
});

test('nothing in the issues repeats a value of the request', () => {
  const request: any = eligibilityRequestFor(JANE);
  request.patient = { reference: `Patient/${JANE.memberId}` };
  const reading = readEligibilityRequest(request);
  assert.ok(!reading.ok);
  assert.doesNotMatch(JSON.stringify(reading.issues), new RegExp(JANE.memberId));
});
