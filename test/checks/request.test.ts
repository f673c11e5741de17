import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidNpi, parseDate8, validateCheckRequest } from '../../src/checks/request.ts';
import { member } from '../helpers/members.ts';

test('NPI check digit (Luhn with the 80840 prefix)', () => {
  assert.equal(isValidNpi('1234567893'), true);
  assert.equal(isValidNpi('1245319599'), true);
  assert.equal(isValidNpi('1234567890'), false);
  assert.equal(isValidNpi('123456789'), false);
  assert.equal(isValidNpi('12345678a3'), false);
});

test('real dates only', () => {
  assert.ok(parseDate8('20240229'));
  assert.equal(parseDate8('20230229'), undefined);
  assert.equal(parseDate8('20241301'), undefined);
  assert.equal(parseDate8('2024011'), undefined);
});

test('a valid request has no problems; an invalid one lists every field', () => {
  const ok = {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Clinic', npi: '1234567893' },
    subscriber: member('SBX1000001'),
    encounter: { serviceTypeCodes: ['30', 'PT'], dateOfService: '20260105' },
  };
  assert.deepEqual(validateCheckRequest(ok), []);
  const problems = validateCheckRequest({
    ...ok,
    subscriber: { ...ok.subscriber, dateOfBirth: 'x', memberId: '' },
    extra: 1,
  });
  const fields = problems.map((p) => p.field).sort();
  assert.deepEqual(fields, ['extra', 'subscriber.dateOfBirth', 'subscriber.memberId']);
});

test('a date of birth in the future is refused', () => {
  const problems = validateCheckRequest(
    {
      tradingPartnerServiceId: 'SANDBOX',
      provider: { organizationName: 'Clinic', npi: '1234567893' },
      subscriber: { memberId: 'A1', firstName: 'A', lastName: 'B', dateOfBirth: '20300101' },
    },
    new Date('2026-11-23T00:00:00Z'),
  );
  assert.deepEqual(problems, [{ field: 'subscriber.dateOfBirth', problem: 'is in the future' }]);
});
