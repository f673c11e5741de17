/**
 * The sandbox payer's people, read from its own member table (src/payers/sandbox/members.ts) in the shape
 * of a request's subscriber: `const jane = member('SBX1000001')`. Tests do not keep copies of a member's
 * name and date of birth, so a change to the table cannot leave them asking about someone else.
 */
import { findMember } from '../../src/payers/sandbox/members.ts';

export interface SandboxPerson {
  memberId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

export function member(memberId: string): SandboxPerson {
  const found = findMember(memberId);
  if (!found) throw new Error(`${memberId} is not in the sandbox member table`);
  const { firstName, lastName, dateOfBirth } = found;
  return { memberId, firstName, lastName, dateOfBirth };
}
