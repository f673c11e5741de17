/**
 * Writes the 005010X279A1 270 eligibility inquiry the service sends to a payer, and the envelope helpers the
 * sandbox payer reuses to write its 271. Pure: data in, X12 text out.
 *
 * Delimiters are fixed: `*` element, `^` repetition (ISA11), `:` component (ISA16), `~` segment (each
 * followed by a newline for readability; readers ignore it). X12 has no escape sequence, so a value that
 * contains a delimiter (or a control character) cannot be sent faithfully: it is REJECTED with an
 * `X12BuildError` naming the field, never silently altered. The API refuses such values before they get
 * here; this is the last line of defence so that a bad value can never forge segments.
 */
import type { Delimiters } from './types.ts';

export const X12_DELIMITERS = {
  element: '*',
  component: ':',
  repetition: '^',
  segment: '~',
} as const satisfies Delimiters;
const IMPLEMENTATION_GUIDE = '005010X279A1';

/** A value that cannot be written into X12. The message names the field and the problem, never the value. */
export class X12BuildError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Cannot write ${field} into X12: ${problem}`);
    this.name = 'X12BuildError';
  }
}

/**
 * How the service type codes are written: `repeat` one EQ whose EQ01 repeats every code (`EQ*PT^MH`), `loops`
 * one 2110C EQ loop per code (`EQ*PT~EQ*MH`), for payers that read only the first repetition of EQ01.
 */
export type EqForm = 'repeat' | 'loops';

export interface Inquiry270 {
  payer: { name: string; id: string };
  /** `organizationName` (entity type 2) or `firstName` + `lastName` (entity type 1), with a 10-digit NPI. */
  provider: {
    npi: string;
    organizationName?: string;
    firstName?: string;
    lastName?: string;
    providerType?: 'provider' | 'facility';
  };
  subscriber: {
    /**
     * NM109 with qualifier MI. Absent: a demographic search (insurance discovery), whose 2100C names the
     * subscriber by name and date of birth alone, as the 005010X279A1 guide and CAQH CORE allow.
     */
    memberId?: string;
    firstName: string;
    lastName: string;
    middleName?: string;
    /** NM107, e.g. `JR` or `III`: where CAQH CORE rule 258 wants a suffix, not in the last name. */
    suffix?: string;
    dateOfBirth: string;
    gender?: 'M' | 'F' | 'U';
  };
  encounter?: { serviceTypeCodes?: string[]; dateOfService?: string };
  /** Default `repeat`. */
  eqForm?: EqForm;
  /** Our trace (TRN02), echoed back by the payer in the 271's `TRN*2`. Also used as the BHT03 reference. */
  traceNumber: string;
}

export interface Envelope270 {
  /** ISA06/GS02, up to 15 characters. */
  senderId: string;
  /** ISA05; default `ZZ` (mutually defined). Payers and clearinghouses assign it at enrolment. */
  senderQualifier?: string;
  /** ISA08/GS03, up to 15 characters. */
  receiverId: string;
  /** ISA07; default `ZZ`. */
  receiverQualifier?: string;
  /** ISA13 and GS06, 1..999999999. */
  interchangeControlNumber: number;
  /** Dates and times are written in UTC. */
  now: Date;
  usageIndicator: 'T' | 'P';
  /** TRN03, 10 characters; default `9` + the sender id, padded with `0` (9 = a user-assigned identifier). */
  originatorId?: string;
}

const CONTROL_OR_DELIMITER = /[*~^:\p{Cc}]/u;

/** Checks one element value; returns it trimmed. */
function x12Value(
  value: string | undefined,
  field: string,
  rule: { min?: number; max?: number; pattern?: RegExp } = {},
): string {
  const v = (value ?? '').trim();
  if (v.length < (rule.min ?? 1)) throw new X12BuildError(field, 'is missing or too short');
  if (rule.max !== undefined && v.length > rule.max && characters(v) > rule.max)
    throw new X12BuildError(field, `is longer than ${rule.max}`);
  if (CONTROL_OR_DELIMITER.test(v))
    throw new X12BuildError(field, 'contains an X12 delimiter or control character');
  if (rule.pattern && !rule.pattern.test(v)) throw new X12BuildError(field, 'has the wrong format');
  return v;
}

/**
 * Element lengths count characters, as the API's schema does (JSON Schema's maxLength counts code points):
 * a name of 35 letters outside the Basic Multilingual Plane is 70 UTF-16 units but 35 characters.
 */
function characters(v: string): number {
  let n = 0;
  for (const _ of v) n++;
  return n;
}

/** One segment; trailing empty elements are dropped, as the guides require. */
export function segment(id: string, ...elements: (string | undefined)[]): string {
  const values = elements.map((e) => e ?? '');
  while (values.length > 0 && values[values.length - 1] === '') values.pop();
  for (const [i, v] of values.entries()) {
    if (v.includes(X12_DELIMITERS.element) || v.includes(X12_DELIMITERS.segment)) {
      throw new X12BuildError(`${id}${String(i + 1).padStart(2, '0')}`, 'contains an X12 delimiter');
    }
  }
  return [id, ...values].join(X12_DELIMITERS.element);
}

export interface InterchangeHeader {
  functionalIdCode: 'HS' | 'HB';
  transactionSetId: '270' | '271';
  senderQualifier: string;
  senderId: string;
  receiverQualifier: string;
  receiverId: string;
  controlNumber: number;
  now: Date;
  usageIndicator: 'T' | 'P';
}

const pad2 = (n: number) => String(n).padStart(2, '0');
export const ccyymmdd = (d: Date) =>
  `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}`;
export const hhmm = (d: Date) => `${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}`;

const ISA_ID = /^[A-Za-z0-9 .&/()#-]+$/;

/**
 * ISA, GS, ST, the transaction body, SE (segment count ST..SE), GE, IEA: one interchange with one group and
 * one transaction set. Control numbers: ISA13 = IEA02, GS06 = GE02 (the same number), ST02 = SE02 (`0001`).
 */
export function writeInterchange(h: InterchangeHeader, body: string[]): string {
  if (!Number.isInteger(h.controlNumber) || h.controlNumber < 1 || h.controlNumber > 999_999_999) {
    throw new X12BuildError('interchangeControlNumber', 'must be an integer from 1 to 999999999');
  }
  if (Number.isNaN(h.now.getTime())) throw new X12BuildError('now', 'is not a valid date');
  if (h.usageIndicator !== 'T' && h.usageIndicator !== 'P')
    throw new X12BuildError('usageIndicator', 'must be T or P');
  const sender = x12Value(h.senderId, 'senderId', { max: 15, pattern: ISA_ID });
  const receiver = x12Value(h.receiverId, 'receiverId', { max: 15, pattern: ISA_ID });
  const control = String(h.controlNumber).padStart(9, '0');
  const date8 = ccyymmdd(h.now);
  const time = hhmm(h.now);
  const d = X12_DELIMITERS;
  const isa = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    h.senderQualifier.padEnd(2).slice(0, 2),
    sender.padEnd(15),
    h.receiverQualifier.padEnd(2).slice(0, 2),
    receiver.padEnd(15),
    date8.slice(2),
    time,
    d.repetition,
    '00501',
    control,
    '0',
    h.usageIndicator,
    d.component,
  ].join(d.element);
  const transaction = [
    segment('ST', h.transactionSetId, '0001', IMPLEMENTATION_GUIDE),
    ...body,
    // SE01 counts ST through SE.
    segment('SE', String(body.length + 2), '0001'),
  ];
  const group = [
    segment(
      'GS',
      h.functionalIdCode,
      sender,
      receiver,
      date8,
      time,
      String(h.controlNumber),
      'X',
      IMPLEMENTATION_GUIDE,
    ),
    ...transaction,
    segment('GE', '1', String(h.controlNumber)),
  ];
  const segments = [isa, ...group, segment('IEA', '1', control)];
  return segments.map((s) => `${s}${d.segment}\n`).join('');
}

const DATE8 = /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/;
const NPI = /^\d{10}$/;
const SERVICE_TYPE_CODE = /^[A-Z0-9]{1,2}$/;
/** ISA05/ISA07 interchange id qualifiers (`ZZ`, `01`, `30`, ...): two characters, written as given. */
const QUALIFIER = /^[A-Z0-9]{2}$/;

function defaultOriginator(senderId: string): string {
  const alnum = senderId.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return `9${alnum.padEnd(9, '0').slice(0, 9)}`;
}

/** NM1 name elements (NM102..NM105) of the information receiver: organization or person. */
function providerName(p: Inquiry270['provider']): [string, string, string?] {
  if (p.organizationName?.trim()) {
    return ['2', x12Value(p.organizationName, 'provider.organizationName', { max: 60 })];
  }
  if (p.firstName?.trim() && p.lastName?.trim()) {
    return [
      '1',
      x12Value(p.lastName, 'provider.lastName', { max: 60 }),
      x12Value(p.firstName, 'provider.firstName', { max: 35 }),
    ];
  }
  throw new X12BuildError('provider', 'needs organizationName or firstName and lastName');
}

/** NM108/NM109 of loop 2100C: `MI` and the member id, or nothing at all for a demographic search. */
function memberIdElements(memberId: string | undefined): string[] {
  if (memberId === undefined) return [];
  return ['MI', x12Value(memberId, 'subscriber.memberId', { max: 80 })];
}

export function build270(inquiry: Inquiry270, envelope: Envelope270): string {
  const { provider, subscriber, encounter } = inquiry;
  const trace = x12Value(inquiry.traceNumber, 'traceNumber', { max: 50 });
  const originator = x12Value(envelope.originatorId ?? defaultOriginator(envelope.senderId), 'originatorId', {
    min: 10,
    max: 10,
  });
  const codes = encounter?.serviceTypeCodes?.length ? encounter.serviceTypeCodes : ['30'];
  if (codes.length > 99) throw new X12BuildError('encounter.serviceTypeCodes', 'has more than 99 codes');
  const eq = codes.map((c, i) =>
    x12Value(c, `encounter.serviceTypeCodes[${i}]`, { pattern: SERVICE_TYPE_CODE }),
  );
  const [entityType, ...names] = providerName(provider);
  const npi = x12Value(provider.npi, 'provider.npi', { pattern: NPI });
  const body = [
    segment('BHT', '0022', '13', trace, ccyymmdd(envelope.now), hhmm(envelope.now)),
    segment('HL', '1', '', '20', '1'),
    segment(
      'NM1',
      'PR',
      '2',
      x12Value(inquiry.payer.name, 'payer.name', { max: 60 }),
      '',
      '',
      '',
      '',
      'PI',
      x12Value(inquiry.payer.id, 'payer.id', { max: 80 }),
    ),
    segment('HL', '2', '1', '21', '1'),
    segment(
      'NM1',
      provider.providerType === 'facility' ? 'FA' : '1P',
      entityType,
      names[0],
      names[1],
      '',
      '',
      '',
      'XX',
      npi,
    ),
    segment('HL', '3', '2', '22', '0'),
    segment('TRN', '1', trace, originator),
    segment(
      'NM1',
      'IL',
      '1',
      x12Value(subscriber.lastName, 'subscriber.lastName', { max: 60 }),
      x12Value(subscriber.firstName, 'subscriber.firstName', { max: 35 }),
      subscriber.middleName?.trim()
        ? x12Value(subscriber.middleName, 'subscriber.middleName', { max: 25 })
        : '',
      '',
      subscriber.suffix?.trim() ? x12Value(subscriber.suffix, 'subscriber.suffix', { max: 10 }) : '',
      ...memberIdElements(subscriber.memberId),
    ),
    segment(
      'DMG',
      'D8',
      x12Value(subscriber.dateOfBirth, 'subscriber.dateOfBirth', { pattern: DATE8 }),
      subscriber.gender ? x12Value(subscriber.gender, 'subscriber.gender', { pattern: /^[MFU]$/ }) : '',
    ),
  ];
  if (encounter?.dateOfService) {
    body.push(
      segment(
        'DTP',
        '291',
        'D8',
        x12Value(encounter.dateOfService, 'encounter.dateOfService', { pattern: DATE8 }),
      ),
    );
  }
  if (inquiry.eqForm === 'loops') for (const code of eq) body.push(segment('EQ', code));
  else body.push(segment('EQ', eq.join(X12_DELIMITERS.repetition)));
  return writeInterchange(
    {
      functionalIdCode: 'HS',
      transactionSetId: '270',
      senderQualifier: x12Value(envelope.senderQualifier ?? 'ZZ', 'senderQualifier', {
        min: 2,
        max: 2,
        pattern: QUALIFIER,
      }),
      senderId: envelope.senderId,
      receiverQualifier: x12Value(envelope.receiverQualifier ?? 'ZZ', 'receiverQualifier', {
        min: 2,
        max: 2,
        pattern: QUALIFIER,
      }),
      receiverId: envelope.receiverId,
      controlNumber: envelope.interchangeControlNumber,
      now: envelope.now,
      usageIndicator: envelope.usageIndicator,
    },
    body,
  );
}
