/**
 * Who a check is about, as keyed hashes (issue 17 sections 2 and 3): the lookups "the latest earlier check
 * of this patient" (coverage.changed) and "a recent check that asked this same question" (reuse) need an
 * equality on the patient's identity, and the store must not hold it in the clear beside every check for
 * that. HMAC-SHA256 with a key derived from the service's master secret (ServiceKeys.patientIdentityKey,
 * like the API key pepper): without the secret, the hashes cannot be tested against guessed names and
 * dates of birth, which a plain hash of such a small space could be.
 *
 * The identity is normalized first, so that the same person written twice compares equal: upper case,
 * diacritics folded, spaces and punctuation dropped from names, separators dropped from the member id.
 * The middle name and suffix are left out (one submit may carry them and the next not).
 *
 * - patient key: payer, member id, first and last name, date of birth, dependent.
 * - reuse key: the patient key's identity plus provider NPI, the service type codes (a set: order and
 *   repeats do not matter; none sent means `30`, as the 270 builder sends) and the date of service as sent
 *   (none: "today", the same key every day). The date of service is part of the question: a payer answers
 *   for that date, and coverage can end between two dates (sandbox member SBX1000011).
 *
 * The request has no dependent today (the 270 asks about the subscriber); the dependent's slot is kept in
 * the hashed tuple, empty, so adding dependent inquiries changes no existing key.
 *
 * Changing the normalization or the tuple changes every key: old checks would then be neither reused nor
 * compared. Bump the version strings and say so in the CHANGELOG if that is ever needed.
 */
import { createHmac } from 'node:crypto';
import type { EligibilityCheckRequest, StoredCheckRequest } from '../contract/check-request.ts';

export interface CheckKeys {
  patientKey: string;
  reuseKey: string;
}

/** Upper case, diacritics folded, only letters and digits kept. */
function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

const normalizeId = (id: string) => id.toUpperCase().replace(/[\s-]/g, '');

function identity(request: EligibilityCheckRequest): (string | null)[] {
  const s = request.subscriber;
  return [
    request.tradingPartnerServiceId.toUpperCase(),
    normalizeId(s.memberId),
    normalizeName(s.firstName),
    normalizeName(s.lastName),
    s.dateOfBirth,
    null, // dependent: see the comment at the top
  ];
}

function hmac(key: Buffer, tuple: unknown[]): string {
  return createHmac('sha256', key).update(JSON.stringify(tuple)).digest('hex');
}

/**
 * A stored request's keys; undefined for a discovery's inquiry, which names no member id: its identity is
 * known once the payer answers with one (`checkKeys` of the request with that member id).
 */
export function storedCheckKeys(key: Buffer, request: StoredCheckRequest): CheckKeys | undefined {
  const { memberId } = request.subscriber;
  return memberId === undefined
    ? undefined
    : checkKeys(key, { ...request, subscriber: { ...request.subscriber, memberId } });
}

/** The keys of a demographic inquiry that found the patient: its request with the member id of the answer. */
export function answeredCheckKeys(
  key: Buffer,
  request: StoredCheckRequest,
  body: string,
): CheckKeys | undefined {
  const memberId = (JSON.parse(body) as { subscriber?: { memberId?: unknown } }).subscriber?.memberId;
  if (typeof memberId !== 'string' || !memberId) return undefined;
  return storedCheckKeys(key, { ...request, subscriber: { ...request.subscriber, memberId } });
}

export function checkKeys(key: Buffer, request: EligibilityCheckRequest): CheckKeys {
  const who = identity(request);
  const serviceTypes = [...new Set(request.encounter?.serviceTypeCodes ?? ['30'])].sort();
  return {
    patientKey: hmac(key, ['patient/1', ...who]),
    reuseKey: hmac(key, [
      'reuse/1',
      ...who,
      request.provider.npi,
      serviceTypes,
      request.encounter?.dateOfService ?? null,
    ]),
  };
}
