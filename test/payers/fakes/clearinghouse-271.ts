/**
 * What the fake clearinghouse's payers do with a 270: find which payer it is for, read its EQ segments the
 * way that payer reads them (its service-type behaviour), and write a valid 271 with the payer's own EB
 * rows for every code it answered. Built with the project's X12 helpers (segment writer, envelope writer,
 * the sandbox's EB row writer), so a row can never drift by one separator.
 */

import { benefitRows } from '../../../src/payers/sandbox/benefit-rows.ts';
import { type ReceivedName, readInquiry } from '../../../src/payers/sandbox/inquiry.ts';
import type { Plan, ServiceBenefit } from '../../../src/payers/sandbox/members.ts';
import { ccyymmdd, hhmm, segment, writeInterchange } from '../../../src/x12/build270.ts';
import { readSegments } from '../../../src/x12/segments.ts';
import { X12Error } from '../../../src/x12/types.ts';

/**
 * How a payer reads the service type codes of a 270:
 * - `repeat`: every code of a repeated EQ01 and every EQ loop;
 * - `first-repetition`: only the first code of each EQ01, but every EQ loop (ask one code per EQ loop);
 * - `first-eq`: only the first code of the first EQ segment (ask one 270 per code);
 * - `generic-only`: answers `30` with plan-level rows whatever is asked.
 */
export type StcBehaviour = 'repeat' | 'first-repetition' | 'first-eq' | 'generic-only';
export const STC_BEHAVIOURS: readonly StcBehaviour[] = [
  'repeat',
  'first-repetition',
  'first-eq',
  'generic-only',
];

export interface ClearinghousePayer {
  /** `CH0001`…: NM109 of loop 2100A. */
  id: string;
  name: string;
  /** 0-based position behind the account; the behaviour and the amounts follow from it. */
  index: number;
  behaviour: StcBehaviour;
}

/** Six payers in ten read every repetition, two only the first, one only the first EQ, one only `30`. */
const BEHAVIOUR_CYCLE: readonly StcBehaviour[] = [
  'repeat',
  'repeat',
  'repeat',
  'repeat',
  'repeat',
  'repeat',
  'first-repetition',
  'first-repetition',
  'first-eq',
  'generic-only',
];

export function behaviourByIndex(index: number): StcBehaviour {
  return BEHAVIOUR_CYCLE[index % BEHAVIOUR_CYCLE.length]!;
}

/** `count` payers `CH0001`… (four digits, more when there are more than 9 999). */
export function clearinghousePayers(
  count: number,
  overrides: Record<string, StcBehaviour> = {},
): ClearinghousePayer[] {
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, index) => {
    const number = String(index + 1).padStart(width, '0');
    const id = `CH${number}`;
    return {
      id,
      name: `Clearinghouse Payer ${number}`,
      index,
      behaviour: overrides[id] ?? behaviourByIndex(index),
    };
  });
}

/**
 * The payer a 270 asks: NM109 of loop 2100A, as a clearinghouse routes (ISA08 names the clearinghouse, or
 * whatever the connection's receiverId says). Service type codes per EQ segment.
 */
export interface Routed270 {
  payerId?: string;
  /** EQ01 of each EQ segment of loop 2000C/2110C, split at the repetition separator. */
  eq: string[][];
}

export function route270(x12: string): Routed270 | undefined {
  let read: ReturnType<typeof readSegments>;
  try {
    read = readSegments(x12);
  } catch (err) {
    if (err instanceof X12Error) return undefined;
    throw err;
  }
  const { segments, delimiters } = read;
  const out: Routed270 = { eq: [] };
  let level: string | undefined;
  for (const s of segments) {
    if (s.id === 'HL') level = s.elements[3];
    else if (s.id === 'NM1' && level === '20' && s.elements[1] === 'PR') out.payerId ??= s.elements[9];
    else if (s.id === 'EQ' && level === '22') {
      const codes = s.elements[1] ?? '';
      out.eq.push((delimiters.repetition ? codes.split(delimiters.repetition) : [codes]).filter(Boolean));
    }
  }
  return out;
}

/** The codes a payer with this behaviour answers, in order, each once. */
export function answeredCodes(behaviour: StcBehaviour, eq: string[][]): string[] {
  let codes: string[];
  switch (behaviour) {
    case 'repeat':
      codes = eq.flat();
      break;
    case 'first-repetition':
      codes = eq.flatMap((loop) => loop.slice(0, 1));
      break;
    case 'first-eq':
      codes = eq[0]?.slice(0, 1) ?? [];
      break;
    case 'generic-only':
      codes = ['30'];
      break;
  }
  // A 270 without EQ is a generic inquiry.
  return codes.length ? [...new Set(codes)] : ['30'];
}

/** Amounts vary by payer and code but never between two runs. */
function amount(payer: ClearinghousePayer, code: string, steps: number, step: number, base: number): number {
  let h = payer.index;
  for (const c of code) h = (h * 31 + c.charCodeAt(0)) % 9973;
  return base + (h % steps) * step;
}

/** The payer's plan as it answers these codes: `30` brings plan-level deductible and out-of-pocket rows. */
export function planFor(payer: ClearinghousePayer, codes: string[]): Plan {
  const generic = codes.includes('30');
  const services: ServiceBenefit[] = codes
    .filter((c) => c !== '30')
    .map((code, i) => ({
      serviceTypeCode: code,
      covered: true,
      ...(i % 2 === 0
        ? { copay: amount(payer, code, 8, 5, 10) }
        : // Whole percents divided once, so the fraction prints as payers write it (.3, never .30000000000000004).
          { coinsurance: amount(payer, code, 4, 10, 10) / 100 }),
      deductibleApplies: i % 3 === 0,
      authorizationRequired: false,
    }));
  const deductible = amount(payer, '30', 10, 250, 500);
  return {
    active: true,
    name: `${payer.name} PPO`,
    insuranceType: 'PR',
    groupNumber: `G-${payer.id}`,
    eligibilityDate: '20260101',
    period: { start: '20260101', end: '20261231' },
    statusRows: codes.map((c) => [c]),
    // benefitRows writes the plan deductible for a service row with deductibleApplies; the plan-level rows
    // (EB03 30) are written only when 30 was answered.
    deductible: {
      individual: deductible,
      individualRemaining: deductible / 2,
      family: deductible * 2,
      familyRemaining: deductible,
    },
    ...(generic
      ? { outOfPocket: { individual: 6000, individualRemaining: 4000, family: 12000, familyRemaining: 9000 } }
      : {}),
    services,
  };
}

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

export interface Envelope {
  controlNumber: number;
  now: Date;
}

/**
 * The 271 of `payer` for this 270: loops 2000A (the payer), 2000B (the 270's receiver echoed), 2000C (TRN
 * echo and the payer's own trace, the 270's subscriber and date of birth, EB rows of the answered codes).
 * Throws PermanentPayerError (from readInquiry) when the 270 cannot be read; the caller checks first.
 */
/**
 * A person a payer behind the fake knows, for demographic searches (a 270 without a member id): found by
 * first name, last name and date of birth, answered with this member id in 2100C.
 */
export interface SearchableMember {
  payerId: string;
  memberId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

/**
 * How the fake answers a 270 whose 2100C has no member id: the member of this payer with that name and date
 * of birth (compared in upper case), or AAA 75 (Subscriber/Insured not found) when none or several match.
 * undefined: the 270 names a member id, and is answered as every other.
 */
export function searchFor(
  x12_270: string,
  payerId: string,
  members: readonly SearchableMember[],
): { found: SearchableMember } | { notFound: true } | undefined {
  const { subscriber } = readInquiry(x12_270);
  if (subscriber.id !== undefined || subscriber.idQualifier !== undefined) return undefined;
  const upper = (s: string | undefined) => (s ?? '').toUpperCase();
  const found = members.filter(
    (m) =>
      m.payerId === payerId &&
      upper(m.firstName) === upper(subscriber.first) &&
      upper(m.lastName) === upper(subscriber.lastOrOrganization) &&
      m.dateOfBirth === subscriber.dateOfBirth,
  );
  return found.length === 1 ? { found: found[0]! } : { notFound: true };
}

/** A demographic search's "not found": the inquiry's subscriber echoed with AAA*N**75*C in 2100C. */
export function writeNotFound271(x12_270: string, payer: ClearinghousePayer, envelope: Envelope): string {
  const inquiry = readInquiry(x12_270);
  return interchange271(inquiry, envelope, [
    ...head271(inquiry, payer, envelope),
    echoName(inquiry.subscriber),
    segment('AAA', 'N', '', '75', 'C'),
    ...(inquiry.subscriber.dateOfBirth ? [segment('DMG', 'D8', inquiry.subscriber.dateOfBirth)] : []),
  ]);
}

/** Loops 2000A, 2000B and the start of 2000C (HL and traces) of the fake's 271. */
function head271(inquiry: ReturnType<typeof readInquiry>, payer: ClearinghousePayer, envelope: Envelope) {
  return [
    segment('BHT', '0022', '11', inquiry.reference, ccyymmdd(envelope.now), hhmm(envelope.now)),
    segment('HL', '1', '', '20', '1'),
    segment('NM1', 'PR', '2', payer.name, '', '', '', '', 'PI', payer.id),
    segment('HL', '2', '1', '21', '1'),
    echoName(inquiry.provider),
    segment('HL', '3', '2', '22', '0'),
    ...(inquiry.trace ? [segment('TRN', '2', inquiry.trace.number, inquiry.trace.originator)] : []),
    segment('TRN', '1', `CH${envelope.controlNumber}`, '9FAKECLEAR'),
  ];
}

function interchange271(inquiry: ReturnType<typeof readInquiry>, envelope: Envelope, body: string[]): string {
  return writeInterchange(
    {
      functionalIdCode: 'HB',
      transactionSetId: '271',
      senderQualifier: 'ZZ',
      senderId: 'FAKECLEAR',
      receiverQualifier: inquiry.senderQualifier,
      receiverId: inquiry.senderId,
      controlNumber: envelope.controlNumber,
      now: envelope.now,
      usageIndicator: inquiry.usageIndicator,
    },
    body,
  );
}

/** `found`: a demographic search's member, whose id the answer's 2100C carries. */
export function write271(
  x12_270: string,
  payer: ClearinghousePayer,
  codes: string[],
  envelope: Envelope,
  found?: SearchableMember,
): string {
  const inquiry = readInquiry(x12_270);
  const plan = planFor(payer, codes);
  const rows = benefitRows(plan);
  // Without 30 the plan-level deductible rows must go: benefitRows writes them whenever the plan has one.
  const ebRows = codes.includes('30') ? rows : rows.filter((r) => !/^EB\*C\*(IND|FAM)\*30\*/.test(r));
  const subscriber = found
    ? { ...inquiry.subscriber, idQualifier: 'MI', id: found.memberId }
    : inquiry.subscriber;
  const body = [
    ...head271(inquiry, payer, envelope),
    echoName(subscriber),
    segment('REF', '6P', plan.groupNumber),
    ...(subscriber.dateOfBirth ? [segment('DMG', 'D8', subscriber.dateOfBirth, subscriber.gender)] : []),
    segment('DTP', '291', 'RD8', `${plan.period.start}-${plan.period.end}`),
    ...ebRows,
  ];
  return interchange271(inquiry, envelope, body);
}
