/**
 * The sandbox's subscriber matching rules (docs/sandbox.md, "Matching"), applied in order.
 * Each failure is an AAA reject reason for loop 2100C.
 *
 * A 270 whose 2100C has no member id (no NM108/NM109) is a demographic search (docs/sandbox.md,
 * "Demographic search"): the member whose first name, last name and date of birth all match is found; none
 * or several is AAA 75, several with a message that the search was ambiguous.
 */
import type { ReceivedInquiry } from './inquiry.ts';
import { findMember, MEMBERS, type Member } from './members.ts';

export type MatchResult =
  | { kind: 'found'; member: Member }
  | { kind: 'rejected'; code: string; ambiguous?: boolean };

const MEMBER_ID = /^SBX\d{7}$/;

export function matchSubscriber(subscriber: ReceivedInquiry['subscriber']): MatchResult {
  if (subscriber.idQualifier === undefined && subscriber.id === undefined) return searchMember(subscriber);
  const memberId = subscriber.id ?? '';
  // 72 Invalid/Missing subscriber/insured ID
  if (subscriber.idQualifier !== 'MI' || !MEMBER_ID.test(memberId)) return { kind: 'rejected', code: '72' };
  const member = findMember(memberId);
  // 75 Subscriber/Insured not found
  if (!member) return { kind: 'rejected', code: '75' };
  // 73 Invalid/Missing subscriber/insured name
  if ((subscriber.lastOrOrganization ?? '').toUpperCase() !== member.lastName.toUpperCase()) {
    return { kind: 'rejected', code: '73' };
  }
  // 58 Invalid/Missing date of birth; 71 Patient birth date does not match that on the database
  if (!subscriber.dateOfBirth) return { kind: 'rejected', code: '58' };
  if (subscriber.dateOfBirth !== member.dateOfBirth) return { kind: 'rejected', code: '71' };
  return { kind: 'found', member };
}

/**
 * A name as the service's submit repair leaves it (src/checks/request-repair.ts): accents and other marks
 * dropped, upper case, runs of spaces as one. A 270 sent by another program may not be repaired; the
 * sandbox compares as if it were.
 */
export function comparableName(name: string | undefined): string {
  return (name ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/['’‘`.]/gu, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The demographic search: first name, last name and date of birth, all three required and all matching. */
function searchMember(subscriber: ReceivedInquiry['subscriber']): MatchResult {
  const first = comparableName(subscriber.first);
  const last = comparableName(subscriber.lastOrOrganization);
  // 58 Invalid/Missing date of birth: a search needs it (the guide's minimum for a search without an id).
  if (!subscriber.dateOfBirth) return { kind: 'rejected', code: '58' };
  if (!first || !last) return { kind: 'rejected', code: '75' };
  const found = MEMBERS.filter(
    (m) =>
      comparableName(m.firstName) === first &&
      comparableName(m.lastName) === last &&
      m.dateOfBirth === subscriber.dateOfBirth,
  );
  if (found.length === 1) return { kind: 'found', member: found[0]! };
  return found.length === 0
    ? { kind: 'rejected', code: '75' }
    : { kind: 'rejected', code: '75', ambiguous: true };
}
