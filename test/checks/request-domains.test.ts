/**
 * Submit validation and the 270 builder agree on every field's domain: what the API accepts can be
 * written into X12, and what cannot be written is refused with a 400 naming the field. Validation answers
 * stay small whatever the input, and never echo the client's field names beyond short identifiers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatProblems, PROBLEMS_IN_ALL, validateCheckRequest } from '../../src/checks/request.ts';
import { build270 } from '../../src/x12/build270.ts';
import { edgeRequests } from '../helpers/edge-requests.ts';

const VALID = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
};
const withDos = (dateOfService: string) => ({ ...VALID, encounter: { dateOfService } });

function build(request: typeof VALID & { encounter?: object }): string {
  return build270(
    {
      ...request,
      traceNumber: '0193f3a2b4c5d6e7f8a9b0c1d2e3f4a5',
      payer: { name: 'Sandbox Health Plan', id: 'SANDBOX' },
    },
    {
      senderId: 'ELIGSVC',
      receiverId: 'SANDBOX',
      interchangeControlNumber: 1,
      now: new Date(),
      usageIndicator: 'T',
    },
  );
}

test('dates of service outside the 270 domain (1900-2099) are refused at submit', () => {
  for (const dos of ['18991231', '21000101']) {
    assert.deepEqual(validateCheckRequest(withDos(dos)), [
      { field: 'encounter.dateOfService', problem: 'must be from 19000101 to 20991231' },
    ]);
  }
  for (const dos of ['19000101', '20991231']) {
    assert.deepEqual(validateCheckRequest(withDos(dos)), []);
    assert.match(build(withDos(dos)), new RegExp(`DTP\\*291\\*D8\\*${dos}~`));
  }
});

test('names are measured in characters on both sides: 35 astral letters are a valid first name', () => {
  const firstName = '𝒜'.repeat(35);
  const request = { ...VALID, subscriber: { ...VALID.subscriber, firstName } };
  assert.deepEqual(validateCheckRequest(request), []);
  assert.ok(build(request).includes(`*${firstName}*`));
  const tooLong = { ...VALID, subscriber: { ...VALID.subscriber, firstName: '𝒜'.repeat(36) } };
  assert.equal(validateCheckRequest(tooLong)[0]?.field, 'subscriber.firstName');
});

test('property: every request valid at the edges of its domains is accepted and can be written as a 270', () => {
  const requests = edgeRequests(20261124, 3000);
  for (const [i, request] of requests.entries()) {
    assert.deepEqual(validateCheckRequest(request), [], `request ${i} should be valid`);
    assert.doesNotThrow(() => build(request as typeof VALID), `request ${i} could not be written`);
  }
});

test('an unknown field is named as such, and only a short identifier-like name is echoed', () => {
  assert.deepEqual(validateCheckRequest({ ...VALID, subscriber: { ...VALID.subscriber, memberID: 'x' } }), [
    {
      field: 'subscriber.memberID',
      problem: 'is not a known field of subscriber (did you mean `memberId`?)',
      unknownName: 'memberID',
    },
  ]);
  const secretLooking = { ...VALID, 'SBX1000001 JANE DOE 19800115': 1 };
  const problems = validateCheckRequest(secretLooking);
  assert.deepEqual(problems, [{ field: '(unnamed)', problem: 'is not a known field of the request' }]);
  assert.doesNotMatch(formatProblems(problems), /SBX|JANE|1980/);
});

test('a validation answer stays small however many items are bad', () => {
  const manyCodes = { ...VALID, encounter: { serviceTypeCodes: Array.from({ length: 10_700 }, () => 'ZZ') } };
  const codes = validateCheckRequest(manyCodes);
  assert.deepEqual(codes.slice(-2), [
    { field: 'encounter.serviceTypeCodes[2]', problem: 'is not a known X12 service type code' },
    { field: 'body', problem: 'has 10697 more problems' },
  ]);
  const manyFields = Object.fromEntries(Array.from({ length: 10_700 }, (_, i) => [`field${i}`, i]));
  for (const body of [
    manyCodes,
    { ...VALID, ...manyFields },
    { ...VALID, subscriber: { ...VALID.subscriber, ...manyFields } },
  ]) {
    const problems = validateCheckRequest(body);
    assert.ok(problems.length <= PROBLEMS_IN_ALL + 1, `${problems.length} problems`);
    const message = formatProblems(problems);
    assert.ok(message.length < 2048, `${message.length} characters`);
  }
});
