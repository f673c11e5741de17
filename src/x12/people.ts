/**
 * The people and parties of a 271 read from their own 2100 name loops: payer (2100A), provider (2100B),
 * subscriber (2100C) and dependents (2100D, with INS02, their relationship to the subscriber). Readers
 * assign properties by name, in the order the objects always had, and only when non-empty.
 */
import type { Provider, ResponseDependent, ResponseSubscriber } from '../contract/check-response.ts';
import { readAddress, setIfPresent } from './address.ts';
import { ENTITIES, entityType } from './benefits-information.ts';
import { codeName, INS02_RELATIONSHIP_CODES } from './codes.ts';
import type { X12Loop } from './loops.ts';
import type { X12Tokens } from './tokenizer.ts';
import type { Eligibility271 } from './types.ts';

export function nm1(t: X12Tokens, name: X12Loop | undefined): number | undefined {
  const first = name?.segments[0];
  return first !== undefined && t.segmentId(first) === 'NM1' ? first : undefined;
}

export function readPayer(t: X12Tokens, name: X12Loop | undefined): Eligibility271['payer'] {
  const i = nm1(t, name);
  const payer: Eligibility271['payer'] = {};
  if (i === undefined) return payer;
  const payerName = t.value(i, 3);
  if (payerName) payer.payerName = payerName;
  const payerId = t.value(i, 9);
  if (payerId) payer.payerId = payerId;
  readEntityNames(t, i, payer);
  return payer;
}

/** NM101 and NM102 as names (`entityIdentifier`, `entityType`), set when known: the payer's and a person's. */
function readEntityNames(
  t: X12Tokens,
  i: number,
  o: { entityIdentifier?: string; entityType?: string },
): void {
  const entity = ENTITIES.get(t.upperValue(i, 1));
  if (entity) o.entityIdentifier = entity;
  const type = entityType(t.value(i, 2));
  if (type) o.entityType = type;
}

export function readProvider(t: X12Tokens, name: X12Loop | undefined): Provider | undefined {
  const i = nm1(t, name);
  if (i === undefined) return undefined;
  const provider: Provider = {};
  const person = t.value(i, 2) === '1';
  if (person) {
    setIfPresent(provider, 'lastName', t.value(i, 3));
    setIfPresent(provider, 'firstName', t.value(i, 4));
  } else {
    setIfPresent(provider, 'organizationName', t.value(i, 3));
  }
  if (t.upperValue(i, 8) === 'XX') {
    const npi = t.value(i, 9);
    if (npi) provider.npi = npi;
  }
  const address = readAddress(t, name, { subdivision: true });
  if (address) provider.address = address;
  provider.providerType = person ? 'provider' : 'facility';
  return provider;
}

export function readPerson(t: X12Tokens, name: X12Loop | undefined): ResponseSubscriber {
  const person: ResponseSubscriber = {};
  const i = nm1(t, name);
  if (i !== undefined) {
    setIfPresent(person, 'lastName', t.value(i, 3));
    setIfPresent(person, 'firstName', t.value(i, 4));
    setIfPresent(person, 'middleName', t.value(i, 5));
    const qualifier = t.upperValue(i, 8);
    if (qualifier === 'MI' || qualifier === 'II' || qualifier === 'ZZ' || qualifier === '') {
      const memberId = t.value(i, 9);
      if (memberId) person.memberId = memberId;
    }
    readEntityNames(t, i, person);
  }
  if (name === undefined) return person;
  for (const j of name.segments) {
    if (t.segmentId(j) !== 'DMG') continue;
    const dob = t.value(j, 2);
    if (dob) person.dateOfBirth = dob;
    const gender = t.upperValue(j, 3);
    if (gender) person.gender = gender === 'M' || gender === 'F' ? gender : 'U';
    break;
  }
  const address = readAddress(t, name, { subdivision: true });
  if (address) person.address = address;
  return person;
}

/** A 2100D person with its relationship to the subscriber (INS02), as Stedi names it. */
export function readDependent(t: X12Tokens, name: X12Loop | undefined): ResponseDependent {
  const person = readPerson(t, name) as ResponseDependent;
  for (const j of name?.segments ?? []) {
    if (t.segmentId(j) !== 'INS') continue;
    const code = t.upperValue(j, 2);
    if (!code) break;
    person.relationToSubscriberCode = code;
    const relation = codeName(INS02_RELATIONSHIP_CODES, code);
    if (relation) person.relationToSubscriber = relation;
    break;
  }
  return person;
}

/** REF02 of a loop's first REF of each qualifier read: undefined when there is none or it is empty. */
export interface LoopRefs {
  /** REF*6P, the group number. */
  group: string | undefined;
  /** REF*1L, where 4010 payers send the group or policy number. */
  policy: string | undefined;
  /** REF*18, the plan number. */
  plan: string | undefined;
}

const NO_REFS: LoopRefs = Object.freeze({ group: undefined, policy: undefined, plan: undefined });

/**
 * The loop's REF*6P, REF*1L and REF*18 (the first of each, as a search for that qualifier finds it) in one
 * walk over its segments: a walk per qualifier read the subscriber's loop three times per transaction.
 */
export function readRefs(t: X12Tokens, name: X12Loop | undefined): LoopRefs {
  if (name === undefined) return NO_REFS;
  let group: string | undefined;
  let policy: string | undefined;
  let plan: string | undefined;
  let seenGroup = false;
  let seenPolicy = false;
  let seenPlan = false;
  for (const i of name.segments) {
    if (t.segmentId(i) !== 'REF') continue;
    const qualifier = t.upperValue(i, 1);
    if (qualifier === '6P' && !seenGroup) {
      seenGroup = true;
      group = t.value(i, 2) || undefined;
    } else if (qualifier === '1L' && !seenPolicy) {
      seenPolicy = true;
      policy = t.value(i, 2) || undefined;
    } else if (qualifier === '18' && !seenPlan) {
      seenPlan = true;
      plan = t.value(i, 2) || undefined;
    }
  }
  return { group, policy, plan };
}
