/**
 * What the fake gateways do with the X12 inside a request: check the 270 as a payer's front end would
 * (the payer id in loop 2100A, envelope counts and control numbers, read with the project's tokenizer),
 * and write the answers: the sandbox's 271 for the inquiry (its TRN echoes the 270's trace, or another
 * inquiry's for the foreign-trace fault), a 999 rejection or a TA1 rejection.
 */
import { PermanentPayerError } from '../../../src/payers/connector.ts';
import { readInquiry } from '../../../src/payers/sandbox/inquiry.ts';
import { matchSubscriber } from '../../../src/payers/sandbox/matching.ts';
import { respond271 } from '../../../src/payers/sandbox/respond271.ts';
import { ccyymmdd, hhmm, segment } from '../../../src/x12/build270.ts';
import { readSegments, type Segment } from '../../../src/x12/segments.ts';
import { X12Error } from '../../../src/x12/types.ts';

export interface Checked270 {
  /** What is wrong with the 270 (empty: a valid inquiry for this payer). */
  problems: string[];
  /** TRN02 of loop 2000C. */
  trace?: string;
  /** ISA13, for a TA1. */
  interchangeControlNumber?: string;
  /** GS06 and ST02, for a 999. */
  groupControlNumber?: string;
  transactionControlNumber?: string;
}

/** Envelope counts and control numbers of every group and transaction, and the payer id of loop 2100A. */
export function check270(text: string, payerId: string): Checked270 {
  let segments: Segment[];
  try {
    segments = readSegments(text).segments;
  } catch (err) {
    if (err instanceof X12Error) return { problems: ['not an X12 interchange'] };
    throw err;
  }
  const problems: string[] = [];
  const out: Checked270 = { problems };
  const isa = segments[0];
  const iea = segments.at(-1);
  if (isa?.id !== 'ISA' || iea?.id !== 'IEA') return { problems: ['not one ISA…IEA interchange'] };
  out.interchangeControlNumber = isa.elements[13];
  if (iea.elements[2] !== isa.elements[13]) problems.push('IEA02 does not match ISA13');
  const groups = segments.filter((s) => s.id === 'GS').length;
  if (Number(iea.elements[1]) !== groups) problems.push('IEA01 does not count the groups');
  let gs: Segment | undefined;
  let st: { segment: Segment; index: number } | undefined;
  let transactions = 0;
  let level: string | undefined;
  let payerSeen = false;
  for (const [index, s] of segments.entries()) {
    if (s.id === 'GS') {
      gs = s;
      transactions = 0;
      out.groupControlNumber ??= s.elements[6];
    } else if (s.id === 'ST') {
      st = { segment: s, index };
      transactions++;
      out.transactionControlNumber ??= s.elements[2];
      if (s.elements[1] !== '270') problems.push('ST01 is not 270');
    } else if (s.id === 'SE') {
      if (!st) problems.push('SE without ST');
      else {
        if (Number(s.elements[1]) !== index - st.index + 1) problems.push('SE01 does not count the segments');
        if (s.elements[2] !== st.segment.elements[2]) problems.push('SE02 does not match ST02');
      }
      st = undefined;
    } else if (s.id === 'GE') {
      if (Number(s.elements[1]) !== transactions) problems.push('GE01 does not count the transactions');
      if (s.elements[2] !== gs?.elements[6]) problems.push('GE02 does not match GS06');
    } else if (s.id === 'HL') level = s.elements[3];
    else if (s.id === 'NM1' && level === '20' && s.elements[1] === 'PR') {
      payerSeen = true;
      if (s.elements[9] !== payerId) problems.push('NM109 of loop 2100A is not the payer id');
    } else if (s.id === 'TRN' && level === '22' && s.elements[1] === '1') out.trace ??= s.elements[2];
  }
  if (!payerSeen) problems.push('no NM1*PR in loop 2100A');
  if (!out.trace) problems.push('no TRN*1 in loop 2000C');
  return out;
}

/** The sandbox's 271 for this inquiry; `trace` replaces the echoed TRN (a foreign answer). */
export function answer271(x12_270: string, now: Date, trace?: string): string {
  let inquiry: ReturnType<typeof readInquiry>;
  try {
    inquiry = readInquiry(x12_270);
  } catch (err) {
    if (err instanceof PermanentPayerError) throw new Error('the fake cannot answer an unreadable 270');
    throw err;
  }
  if (trace && inquiry.trace) inquiry.trace = { ...inquiry.trace, number: trace };
  const match = matchSubscriber(inquiry.subscriber);
  const answer = match.kind === 'found' ? { kind: 'eligible' as const, member: match.member } : match;
  return respond271(inquiry, answer, { controlNumber: 271_000_001, now, payerTraceNumber: 'FAKE00001' });
}

function interchange(now: Date, inner: string[], groups: number): string {
  const control = '000000999';
  const isa = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    'FAKEPAYER'.padEnd(15),
    'ZZ',
    'ELIGSVC'.padEnd(15),
    ccyymmdd(now).slice(2),
    hhmm(now),
    '^',
    '00501',
    control,
    '0',
    'T',
    ':',
  ].join('*');
  return [isa, ...inner, segment('IEA', String(groups), control)].map((s) => `${s}~\n`).join('');
}

/** A 999 that rejects the inquiry's transaction (AK9*R), the first error in the payer's NM1. */
export function reject999(checked: Checked270, now: Date): string {
  const group = checked.groupControlNumber ?? '1';
  const body = [
    segment('ST', '999', '0001', '005010X231A1'),
    segment('AK1', 'HS', group, '005010X279A1'),
    segment('AK2', '270', checked.transactionControlNumber ?? '0001'),
    segment('IK3', 'NM1', '3', '2100', '8'),
    segment('IK5', 'R', '5'),
    segment('AK9', 'R', '1', '1', '0'),
  ];
  body.push(segment('SE', String(body.length + 1), '0001'));
  const gs = segment(
    'GS',
    'FA',
    'FAKEPAYER',
    'ELIGSVC',
    ccyymmdd(now),
    hhmm(now),
    '999',
    'X',
    '005010X231A1',
  );
  return interchange(now, [gs, ...body, segment('GE', '1', '999')], 1);
}

/** A TA1 that rejects the whole interchange (note 022: invalid control structure). */
export function rejectTa1(checked: Checked270, now: Date): string {
  const ta1 = segment(
    'TA1',
    checked.interchangeControlNumber ?? '000000001',
    ccyymmdd(now).slice(2),
    hhmm(now),
    'R',
    '022',
  );
  return interchange(now, [ta1], 0);
}
