/**
 * Reads the 270 the sandbox payer receives, as a payer would: envelope checks first (a broken envelope is
 * refused outright), then the HL loops of the first transaction. Only what the 271 echoes or the matching
 * rules need is kept. Failures are `PermanentPayerError`s whose messages name the problem and the segment
 * position, never a value.
 */

import { readSegments, type Segment } from '../../x12/segments.ts';
import { X12Error } from '../../x12/types.ts';
import { PermanentPayerError } from '../connector.ts';

/** The information receiver's NM1 as sent, echoed in the 271's loop 2100B. */
export interface ReceivedName {
  entityCode: string;
  entityType: string;
  lastOrOrganization?: string;
  first?: string;
  middle?: string;
  idQualifier?: string;
  id?: string;
}

export interface ReceivedInquiry {
  /** ISA05/ISA06 of the 270: the 271 goes back to them. */
  senderQualifier: string;
  senderId: string;
  usageIndicator: 'T' | 'P';
  /** BHT03, echoed in the 271's BHT03. */
  reference: string;
  provider: ReceivedName;
  /** TRN*1 of loop 2000C: echoed as TRN*2. */
  trace?: { number: string; originator: string };
  subscriber: ReceivedName & { dateOfBirth?: string; gender?: string };
  dateOfService?: string;
  serviceTypeCodes: string[];
}

function refuse(problem: string, at?: Segment): never {
  const where = at ? ` (${at.id} at position ${at.position})` : '';
  throw new PermanentPayerError(`Sandbox payer cannot read the 270: ${problem}${where}`);
}

const nonEmpty = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

function readName(s: Segment): ReceivedName {
  const e = s.elements;
  return {
    entityCode: e[1] ?? '',
    entityType: e[2] ?? '',
    lastOrOrganization: nonEmpty(e[3]),
    first: nonEmpty(e[4]),
    middle: nonEmpty(e[5]),
    idQualifier: nonEmpty(e[8]),
    id: nonEmpty(e[9]),
  };
}

/** ISA13 = IEA02, GS06 = GE02, ST02 = SE02, SE01 = segments from ST to SE. */
function checkEnvelope(segments: Segment[]): { st: number; se: number } {
  const find = (id: string) => segments.findIndex((s) => s.id === id);
  const isa = segments[0];
  if (isa?.id !== 'ISA' || isa.elements.length !== 17)
    refuse('the interchange does not start with a complete ISA');
  const [gs, st, se, ge, iea] = ['GS', 'ST', 'SE', 'GE', 'IEA'].map(find) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (gs < 0 || st < 0 || se < 0 || ge < 0 || iea < 0)
    refuse('an envelope segment (GS, ST, SE, GE or IEA) is missing');
  if (!(gs < st && st < se && se < ge && ge < iea)) refuse('envelope segments are out of order');
  const seg = (i: number) => segments[i]!;
  if (seg(gs).elements[1] !== 'HS') refuse('GS01 is not HS', seg(gs));
  if (seg(st).elements[1] !== '270') refuse('ST01 is not 270', seg(st));
  if (Number(seg(se).elements[1]) !== se - st + 1) refuse('SE01 does not match the segment count', seg(se));
  if (seg(se).elements[2] !== seg(st).elements[2]) refuse('SE02 does not match ST02', seg(se));
  if (seg(ge).elements[2] !== seg(gs).elements[6]) refuse('GE02 does not match GS06', seg(ge));
  if (seg(iea).elements[2] !== isa.elements[13]) refuse('IEA02 does not match ISA13', seg(iea));
  const usage = isa.elements[15];
  if (usage !== 'T' && usage !== 'P') refuse('ISA15 is not T or P', isa);
  return { st, se };
}

export function readInquiry(text: string): ReceivedInquiry {
  let segments: Segment[];
  let repetition: string | null;
  try {
    const read = readSegments(text);
    segments = read.segments;
    repetition = read.delimiters.repetition;
  } catch (err) {
    if (err instanceof X12Error)
      refuse(`not an X12 interchange (${err.issues.map((i) => i.code).join(', ')})`);
    throw err;
  }
  const { st, se } = checkEnvelope(segments);
  const isa = segments[0]!;
  let bht: Segment | undefined;
  let level: string | undefined;
  let payer: Segment | undefined;
  let provider: ReceivedName | undefined;
  let subscriber: ReceivedInquiry['subscriber'] | undefined;
  let subscriberLoops = 0;
  const found: Omit<
    ReceivedInquiry,
    'senderQualifier' | 'senderId' | 'usageIndicator' | 'reference' | 'provider' | 'subscriber'
  > = {
    serviceTypeCodes: [],
  };
  for (const s of segments.slice(st + 1, se)) {
    const e = s.elements;
    if (s.id === 'BHT') bht = s;
    else if (s.id === 'HL') {
      level = e[3];
      if (level === '22') subscriberLoops++;
      if (level === '23') refuse('dependent inquiries (HL 23) are not supported by the sandbox', s);
      if (level !== '20' && level !== '21' && level !== '22') refuse('unknown HL level code', s);
    } else if (subscriberLoops > 1) {
      // Only the first subscriber of the transaction is answered.
    } else if (s.id === 'NM1' && level === '20') payer = s;
    else if (s.id === 'NM1' && level === '21') provider = readName(s);
    else if (s.id === 'NM1' && level === '22') subscriber = readName(s);
    else if (s.id === 'TRN' && level === '22' && e[1] === '1' && e[2])
      found.trace = { number: e[2], originator: e[3] ?? '' };
    else if (s.id === 'DMG' && level === '22' && subscriber) {
      subscriber.dateOfBirth = nonEmpty(e[2]);
      subscriber.gender = nonEmpty(e[3]);
    } else if (s.id === 'DTP' && level === '22' && e[1] === '291') found.dateOfService = nonEmpty(e[3]);
    else if (s.id === 'EQ' && level === '22') {
      const codes = e[1] ?? '';
      found.serviceTypeCodes.push(...(repetition ? codes.split(repetition) : [codes]).filter(Boolean));
    }
  }
  if (bht?.elements[1] !== '0022' || bht.elements[2] !== '13')
    refuse('BHT is missing or not an inquiry (0022/13)', bht);
  if (payer?.elements[1] !== 'PR') refuse('loop 2100A has no NM1*PR payer');
  if (!provider) refuse('loop 2100B has no information receiver NM1');
  if (subscriber?.entityCode !== 'IL') refuse('loop 2100C has no NM1*IL subscriber');
  return {
    senderQualifier: isa.elements[5]!.trim(),
    senderId: isa.elements[6]!.trim(),
    usageIndicator: isa.elements[15] as 'T' | 'P',
    reference: bht.elements[3] ?? '',
    provider,
    subscriber,
    ...found,
  };
}
