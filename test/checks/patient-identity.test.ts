/**
 * The keyed hashes of a check's patient and question (src/checks/patient-identity.ts): the same person
 * written differently has one key, another person, payer, provider, service type set or date of service
 * does not, and without the service's key the hashes cannot be recomputed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkKeys } from '../../src/checks/patient-identity.ts';
import type { EligibilityCheckRequest } from '../../src/contract/check-request.ts';
import { deriveServiceKeys } from '../../src/tenancy/master-secret.ts';
import { member } from '../helpers/members.ts';
import { SANDBOX_PROVIDER } from '../helpers/service.ts';

const KEY = deriveServiceKeys('a test master secret that is long enough to use').patientIdentityKey;
const JANE = member('SBX1000001');
const base: EligibilityCheckRequest = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: SANDBOX_PROVIDER,
  subscriber: JANE,
  encounter: { serviceTypeCodes: ['30', 'PT'] },
};
const keys = (r: Partial<EligibilityCheckRequest>) => checkKeys(KEY, { ...base, ...r });

test('hex HMAC-SHA256 values, never containing the identity', () => {
  const k = keys({});
  assert.match(k.patientKey, /^[0-9a-f]{64}$/);
  assert.match(k.reuseKey, /^[0-9a-f]{64}$/);
  assert.notEqual(k.patientKey, k.reuseKey);
  for (const value of Object.values(JANE)) assert.ok(!JSON.stringify(k).includes(value));
});

test('the same person written differently is the same patient and the same question', () => {
  const k = keys({});
  const written = keys({
    subscriber: {
      ...JANE,
      memberId: JANE.memberId.toLowerCase(),
      firstName: ` ${JANE.firstName.toLowerCase()} `,
      lastName: JANE.lastName.toLowerCase(),
      middleName: 'Q',
    },
    encounter: { serviceTypeCodes: ['PT', '30', 'PT'] },
  });
  assert.deepEqual(written, k);
  // Diacritics and punctuation in names (folded by request repair anyway) do not make another patient.
  const accented = checkKeys(KEY, { ...base, subscriber: { ...JANE, firstName: 'Jáne' } });
  assert.equal(accented.patientKey, k.patientKey);
});

test('another person or payer is another patient; provider, service types and date of service another question', () => {
  const k = keys({});
  assert.notEqual(keys({ subscriber: { ...JANE, dateOfBirth: '19800116' } }).patientKey, k.patientKey);
  assert.notEqual(keys({ subscriber: { ...JANE, memberId: 'SBX1000002' } }).patientKey, k.patientKey);
  assert.notEqual(keys({ subscriber: { ...JANE, firstName: 'JOAN' } }).patientKey, k.patientKey);
  assert.notEqual(keys({ tradingPartnerServiceId: 'OTHER' }).patientKey, k.patientKey);
  for (const question of [
    keys({ provider: { ...SANDBOX_PROVIDER, npi: '1245319599' } }),
    keys({ encounter: { serviceTypeCodes: ['30'] } }),
    keys({ encounter: { serviceTypeCodes: ['30', 'PT'], dateOfService: '20261101' } }),
  ]) {
    assert.equal(question.patientKey, k.patientKey, 'same patient');
    assert.notEqual(question.reuseKey, k.reuseKey, 'another question');
  }
  // No service type codes means 30, as the 270 is sent.
  assert.equal(
    keys({ encounter: undefined }).reuseKey,
    keys({ encounter: { serviceTypeCodes: ['30'] } }).reuseKey,
  );
});

test('another service secret gives unrelated hashes', () => {
  const other = deriveServiceKeys('another master secret, just as long as the first one').patientIdentityKey;
  assert.notEqual(checkKeys(other, base).patientKey, keys({}).patientKey);
});
