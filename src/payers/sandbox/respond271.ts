/**
 * Writes the sandbox payer's 271 for one received 270, per docs/sandbox-271.md: loops 2000A payer,
 * 2000B information receiver (the 270's NM1 echoed), 2000C subscriber (TRN echo + payer trace, NM1/REF/N3/
 * N4/DMG/DTP, EB rows) and one 2000D per dependent. Pure: the caller supplies control numbers and the clock.
 */
import { ccyymmdd, hhmm, segment, writeInterchange } from '../../x12/build270.ts';
import { benefitRows } from './benefit-rows.ts';
import type { ReceivedInquiry, ReceivedName } from './inquiry.ts';
import { type Dependent, type Member, type Plan, planOn } from './members.ts';

export const SANDBOX_PAYER = {
  tradingPartnerServiceId: 'SANDBOX',
  payerName: 'Sandbox Health Plan',
  payerId: 'SANDBOX',
} as const;
/** TRN03 of the payer's own trace: `9` + a 9-character user-assigned identifier. */
const PAYER_ORIGINATOR = '9SANDBOXHP';

/**
 * `eligible`: the member's plan. `rejected`: an AAA reject reason in loop 2100C (the inquiry's subscriber is
 * echoed). `unavailable`: AAA 42 "unable to respond at current time" in loop 2100A, try again later.
 */
export type Answer271 =
  | { kind: 'eligible'; member: Member }
  | { kind: 'rejected'; code: string; ambiguous?: boolean }
  | { kind: 'unavailable' };

/**
 * What an ambiguous demographic search answers besides AAA 75: loop 2100C has no free text, so it is a 2110C
 * `EB*U` (contact the payer) with this message (docs/sandbox.md, "Demographic search").
 */
export const AMBIGUOUS_SEARCH_MESSAGE =
  'MORE THAN ONE MEMBER MATCHES THIS NAME AND DATE OF BIRTH; SEND THE MEMBER ID';

export interface Envelope271 {
  controlNumber: number;
  now: Date;
  payerTraceNumber: string;
}

/** AAA in a 2100 loop: N = not a valid request, C = please correct and resubmit. */
const correctAndResubmit = (code: string) => segment('AAA', 'N', '', code, 'C');

function echoName(n: ReceivedName): string {
  return segment(
    'NM1',
    n.entityCode,
    n.entityType,
    n.lastOrOrganization,
    n.first,
    n.middle,
    '',
    '',
    n.idQualifier,
    n.id,
  );
}

function memberAddress(member: Member): string[] {
  const a = member.address;
  return [segment('N3', a.line1), segment('N4', a.city, a.state, a.postalCode)];
}

/** Loop 2100C and 2110C for a matched member, with the plan of the date asked about. */
function subscriberLoop(member: Member, plan: Plan): string[] {
  return [
    segment('NM1', 'IL', '1', member.lastName, member.firstName, '', '', '', 'MI', member.memberId),
    ...(plan.groupNumber ? [segment('REF', '6P', plan.groupNumber)] : []),
    ...memberAddress(member),
    segment('DMG', 'D8', member.dateOfBirth, member.gender),
    segment('DTP', '307', 'D8', plan.eligibilityDate),
    segment('DTP', '291', 'RD8', `${plan.period.start}-${plan.period.end}`),
    ...benefitRows(plan),
  ];
}

/** Loop 2000D/2100D: the dependent's name, address and demographics, or the AAA the payer has for them. */
function dependentLoop(member: Member, d: Dependent, hl: number): string[] {
  const name = segment('NM1', '03', '1', d.lastName, d.firstName);
  const demographics = segment('DMG', 'D8', d.dateOfBirth, d.gender);
  const head = segment('HL', String(hl), '3', '23', '0');
  if (d.rejection) return [head, name, correctAndResubmit(d.rejection), demographics];
  // INS*N*19: not the subscriber; relationship 19 = child.
  return [head, name, ...memberAddress(member), demographics, segment('INS', 'N', '19')];
}

export function respond271(inquiry: ReceivedInquiry, answer: Answer271, envelope: Envelope271): string {
  const hasDependents = answer.kind === 'eligible' && answer.member.dependents.length > 0;
  const body = [
    segment('BHT', '0022', '11', inquiry.reference, ccyymmdd(envelope.now), hhmm(envelope.now)),
    segment('HL', '1', '', '20', '1'),
    segment('NM1', 'PR', '2', SANDBOX_PAYER.payerName, '', '', '', '', 'PI', SANDBOX_PAYER.payerId),
  ];
  // 42 belongs to the source (2100A); the rest of the answer still echoes the inquiry so it can be matched.
  if (answer.kind === 'unavailable') body.push(segment('AAA', 'Y', '', '42', 'R'));
  body.push(segment('HL', '2', '1', '21', '1'), echoName(inquiry.provider));
  body.push(segment('HL', '3', '2', '22', hasDependents ? '1' : '0'));
  if (inquiry.trace) body.push(segment('TRN', '2', inquiry.trace.number, inquiry.trace.originator));
  body.push(segment('TRN', '1', envelope.payerTraceNumber, PAYER_ORIGINATOR));
  if (answer.kind === 'eligible') {
    const { member } = answer;
    // The date of service asked about, else the day of the answer (docs/sandbox.md).
    const plan = planOn(member, inquiry.dateOfService ?? ccyymmdd(envelope.now));
    body.push(...subscriberLoop(member, plan));
    for (const [i, d] of member.dependents.entries()) body.push(...dependentLoop(member, d, 4 + i));
  } else {
    body.push(echoName(inquiry.subscriber));
    if (answer.kind === 'rejected') body.push(correctAndResubmit(answer.code));
    if (inquiry.subscriber.dateOfBirth) body.push(segment('DMG', 'D8', inquiry.subscriber.dateOfBirth));
    if (answer.kind === 'rejected' && answer.ambiguous) {
      body.push(segment('EB', 'U'), segment('MSG', AMBIGUOUS_SEARCH_MESSAGE));
    }
  }
  return writeInterchange(
    {
      functionalIdCode: 'HB',
      transactionSetId: '271',
      senderQualifier: 'ZZ',
      senderId: SANDBOX_PAYER.payerId,
      receiverQualifier: inquiry.senderQualifier,
      receiverId: inquiry.senderId,
      controlNumber: envelope.controlNumber,
      now: envelope.now,
      usageIndicator: inquiry.usageIndicator,
    },
    body,
  );
}
