/**
 * The sandbox's subscriber matching rules (docs/sandbox.md, "Matching"), applied in order.
 * Each failure is an AAA reject reason for loop 2100C.
 */
import type { ReceivedInquiry } from './inquiry.ts';
import { findMember, type Member } from './members.ts';

export type MatchResult = { kind: 'found'; member: Member } | { kind: 'rejected'; code: string };

const MEMBER_ID = /^SBX\d{7}$/;

export function matchSubscriber(subscriber: ReceivedInquiry['subscriber']): MatchResult {
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
