/**
 * A 999 (implementation acknowledgment) or a TA1 (interchange acknowledgment) in place of a 271: the payer
 * refused to read the inquiry. What the submitter needs is where: the segment and element a 999's IK3/IK4
 * point at, or the ISA element a TA1 note code is about. Element values (IK404 copies the bad data, which
 * may be a member id or a name) are never read.
 */

import type { TransactionSpan } from './envelope.ts';
import type { X12Tokens } from './tokenizer.ts';
import type { InquiryRejected } from './types.ts';

/** IK304 implementation segment syntax error codes (005010X231A1). */
const SEGMENT_ERRORS: Readonly<Record<string, string>> = {
  '1': 'Unrecognized segment ID',
  '2': 'Unexpected segment',
  '3': 'Required segment missing',
  '4': 'Loop occurs over maximum times',
  '5': 'Segment exceeds maximum use',
  '6': 'Segment not in defined transaction set',
  '7': 'Segment not in proper sequence',
  '8': 'Segment has data element errors',
  I4: 'Implementation "Not Used" segment present',
  I6: 'Implementation dependent segment missing',
  I7: 'Implementation loop occurs under minimum times',
  I8: 'Implementation segment below minimum use',
  I9: 'Implementation dependent "Not Used" segment present',
};

/** IK403 implementation data element syntax error codes (005010X231A1). */
const ELEMENT_ERRORS: Readonly<Record<string, string>> = {
  '1': 'Required data element missing',
  '2': 'Conditional required data element missing',
  '3': 'Too many data elements',
  '4': 'Data element too short',
  '5': 'Data element too long',
  '6': 'Invalid character in data element',
  '7': 'Invalid code value',
  '8': 'Invalid date',
  '9': 'Invalid time',
  '10': 'Exclusion condition violated',
  '12': 'Too many repetitions',
  '13': 'Too many components',
  I6: 'Code value not used in implementation',
  I9: 'Implementation dependent data element missing',
  I10: 'Implementation "Not Used" data element present',
  I11: 'Implementation too few repetitions',
  I12: 'Implementation pattern match failure',
  I13: 'Implementation dependent "Not Used" data element present',
};

/** TA105 interchange note codes, with the ISA/IEA element each is about (where there is one). */
const TA1_NOTES: Readonly<Record<string, [string, string | undefined]>> = {
  '001': ['The Interchange Control Number in the Header and Trailer Do Not Match', 'ISA13'],
  '002': ['This Standard as Noted in the Control Standards Identifier is Not Supported', 'ISA11'],
  '003': ['This Version of the Controls is Not Supported', 'ISA12'],
  '004': ['The Segment Terminator is Invalid', undefined],
  '005': ['Invalid Interchange ID Qualifier for Sender', 'ISA05'],
  '006': ['Invalid Interchange Sender ID', 'ISA06'],
  '007': ['Invalid Interchange ID Qualifier for Receiver', 'ISA07'],
  '008': ['Invalid Interchange Receiver ID', 'ISA08'],
  '009': ['Unknown Interchange Receiver ID', 'ISA08'],
  '010': ['Invalid Authorization Information Qualifier Value', 'ISA01'],
  '011': ['Invalid Authorization Information Value', 'ISA02'],
  '012': ['Invalid Security Information Qualifier Value', 'ISA03'],
  '013': ['Invalid Security Information Value', 'ISA04'],
  '014': ['Invalid Interchange Date Value', 'ISA09'],
  '015': ['Invalid Interchange Time Value', 'ISA10'],
  '016': ['Invalid Interchange Standards Identifier Value', 'ISA11'],
  '017': ['Invalid Interchange Version ID Value', 'ISA12'],
  '018': ['Invalid Interchange Control Number Value', 'ISA13'],
  '019': ['Invalid Acknowledgment Requested Value', 'ISA14'],
  '020': ['Invalid Test Indicator Value', 'ISA15'],
  '021': ['Invalid Number of Included Groups Value', 'IEA01'],
  '022': ['Invalid Control Structure', undefined],
  '023': ['Improper (Premature) End-of-File (Transmission)', undefined],
  '024': ['Invalid Interchange Content (e.g., Invalid GS Segment)', undefined],
  '025': ['Duplicate Interchange Control Number', 'ISA13'],
  '026': ['Invalid Data Element Separator', undefined],
  '027': ['Invalid Component Element Separator', 'ISA16'],
  '028': ['Invalid Delivery Date in Deferred Delivery Request', undefined],
  '029': ['Invalid Delivery Time in Deferred Delivery Request', undefined],
  '030': ['Invalid Delivery Time Code in Deferred Delivery Request', undefined],
  '031': ['Invalid Grade of Service Code', undefined],
};

const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/;

export function read999(t: X12Tokens, ack: TransactionSpan): InquiryRejected {
  let code = '';
  const where: Partial<InquiryRejected> = {};
  let inFirstError = false;
  for (let i = ack.start + 1; i < ack.end; i++) {
    const id = t.segmentId(i);
    if (id === 'AK9' || (id === 'IK5' && !code)) code = t.upperValue(i, 1);
    if (id === 'IK3') {
      // The first segment in error tells the submitter where to start; later ones often follow from it.
      inFirstError = where.segment === undefined && SEGMENT_ID.test(t.upperValue(i, 1));
      if (!inFirstError) continue;
      where.segment = t.upperValue(i, 1);
      const position = Number(t.value(i, 2));
      if (Number.isInteger(position) && position > 0) where.segmentPosition = position;
      if (/^[0-9A-Z]{1,6}$/.test(t.upperValue(i, 3))) where.loop = t.upperValue(i, 3);
      setError(where, t.upperValue(i, 4), SEGMENT_ERRORS);
    } else if (id === 'IK4' && inFirstError && where.element === undefined) {
      const [element, component] = t.value(i, 1).split(t.delimiters.component);
      if (/^\d{1,2}$/.test(element ?? '')) {
        where.element = `${where.segment}${element!.padStart(2, '0')}${/^\d{1,2}$/.test(component ?? '') ? `-${Number(component)}` : ''}`;
        setError(where, t.upperValue(i, 3), ELEMENT_ERRORS);
      }
    } else if (id === 'IK5' || id === 'AK2') {
      inFirstError = false;
    }
  }
  code ||= 'R';
  const at = describeWhere(where);
  const message =
    code === 'A'
      ? 'The payer accepted the inquiry but returned no 271.'
      : code === 'E'
        ? `The payer accepted the inquiry with errors and returned no 271${at}.`
        : `The payer rejected the inquiry (implementation acknowledgment ${code})${at}.`;
  return { kind: '999', code, message, ...where };
}

export function readTa1(t: X12Tokens, i: number): InquiryRejected {
  const note = t.value(i, 5);
  const known = /^\d{3}$/.test(note) ? TA1_NOTES[note] : undefined;
  const where: Partial<InquiryRejected> = {};
  if (known) {
    where.segment = known[1]?.slice(0, 3);
    where.element = known[1];
    where.errorCode = note;
    where.errorDescription = known[0];
  }
  const noteText = /^\d{3}$/.test(note) ? note : 'missing';
  return {
    kind: 'TA1',
    code: t.upperValue(i, 4) || 'R',
    message: `The interchange was rejected (TA1 note code ${noteText}${known ? `: ${known[0]}` : ''}).`,
    ...where,
  };
}

function setError(where: Partial<InquiryRejected>, code: string, table: Readonly<Record<string, string>>) {
  if (!/^[0-9A-Z]{1,3}$/.test(code)) return;
  where.errorCode = code;
  const description = table[code];
  if (description) where.errorDescription = description;
}

/** ` (segment NM1 at position 8 in loop 2100C, element NM109: Invalid character in data element)`. */
export function describeWhere(w: Partial<InquiryRejected>): string {
  if (!w.segment) return '';
  const parts = [`segment ${w.segment}`];
  if (w.segmentPosition) parts[0] += ` at position ${w.segmentPosition}`;
  if (w.loop) parts[0] += ` in loop ${w.loop}`;
  if (w.element) parts.push(`element ${w.element}`);
  const why = w.errorDescription ?? (w.errorCode ? `error code ${w.errorCode}` : undefined);
  return ` (first error in ${parts.join(', ')}${why ? `: ${why}` : ''})`;
}
