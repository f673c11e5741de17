/**
 * Request repair (docs/errors.md "Request repair"): before a check is validated and stored, fix what payers
 * reject but a person plainly meant, and say so. Repairs run at submission, so the stored request is the one
 * the 270 is built from, the 202 can already list them, and a check's result repeats them in
 * `requestCorrections` with a `REQUEST_CORRECTED` warning.
 *
 * Nothing is repaired that could change who the patient is: letters keep their base letter, a suffix moves
 * only when it is a whole word after the last name, and ids are never cut or guessed (a member id too long
 * for NM109 is refused, not shortened). Corrections name the field and the kind of change, never a value.
 */
import type { RequestCorrection, Warning } from '../contract/check-response.ts';

export type CorrectionCode =
  | 'NAME_DIACRITICS_FOLDED'
  | 'NAME_PUNCTUATION_REMOVED'
  | 'NAME_SPACES_REMOVED'
  | 'NAME_SUFFIX_MOVED'
  | 'MEMBER_ID_SEPARATORS_REMOVED'
  | 'MEMBER_ID_UPPERCASED'
  | 'DATE_REFORMATTED'
  | 'TRIMMED_TO_MAX_LENGTH';

export interface RepairOptions {
  /** The payer's member ids contain spaces or dashes (payer directory `keepMemberIdSeparators`). */
  keepMemberIdSeparators?: boolean;
  /**
   * `mbi`: the payer's member ids are Medicare Beneficiary Identifiers (payer directory `memberIdFormat`),
   * which have no separators and are written in capitals: separators go whatever `keepMemberIdSeparators`
   * says, and lower-case letters are written as capitals.
   */
  memberIdFormat?: 'mbi';
}

export interface RepairedRequest {
  /** The body with its repairs applied; parts that are not repaired are the same objects as sent. */
  body: unknown;
  corrections: RequestCorrection[];
}

/** The name elements of the 270 a request field fills, with their maximum lengths (005010X279A1 NM1). */
const NAME_FIELDS = [
  { part: 'subscriber', key: 'lastName', max: 60, person: true },
  { part: 'subscriber', key: 'firstName', max: 35, person: true },
  { part: 'subscriber', key: 'middleName', max: 25, person: true },
  { part: 'provider', key: 'lastName', max: 60, person: true },
  { part: 'provider', key: 'firstName', max: 35, person: true },
  { part: 'provider', key: 'organizationName', max: 60, person: false },
] as const;

/** Generational suffixes CAQH CORE rule 258 moves out of a last name (a whole word at its end). */
const SUFFIX_AT_END = /^(.*?[^\s,])[\s,]+(JR|SR|II|III|IV)\.?\s*$/iu;

/** Letters without a combining mark to strip that still have a plain Latin spelling. */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  ß: 'SS',
  ẞ: 'SS',
  æ: 'AE',
  Æ: 'AE',
  œ: 'OE',
  Œ: 'OE',
  ø: 'O',
  Ø: 'O',
  ł: 'L',
  Ł: 'L',
  đ: 'D',
  Đ: 'D',
  ð: 'D',
  Ð: 'D',
  þ: 'TH',
  Þ: 'TH',
  ı: 'I',
};
const ASCII = /^[\x20-\x7e]*$/;
/** Space at either end, a run of spaces, or a space other than U+0020. */
const EXTRA_SPACE = /^\s|\s$|\s\s|[^\S ]/u;
const FOLDABLE = new RegExp(`[${Object.keys(LATIN_LETTERS).join('')}]`, 'gu');

export const CORRECTION_DESCRIPTIONS: Readonly<Record<CorrectionCode, string>> = {
  NAME_DIACRITICS_FOLDED:
    'Letters with accents or other marks were written as their plain letters, in capitals (the X12 basic character set).',
  NAME_PUNCTUATION_REMOVED: 'Apostrophes and periods were removed and the name written in capitals.',
  NAME_SPACES_REMOVED: 'Spaces at the ends were removed and repeated spaces written as one.',
  NAME_SUFFIX_MOVED:
    'A generational suffix (JR, SR, II, III or IV) was moved from the last name to subscriber.suffix, which the 270 sends in NM107 (CAQH CORE rule 258).',
  MEMBER_ID_SEPARATORS_REMOVED: 'Spaces and dashes were removed from the member id.',
  MEMBER_ID_UPPERCASED:
    'The member id was written in capitals: the payer takes Medicare Beneficiary Identifiers, whose letters are capitals.',
  DATE_REFORMATTED: 'A date written YYYY-MM-DD was rewritten as YYYYMMDD.',
  TRIMMED_TO_MAX_LENGTH: 'The value was cut to the longest the 270 element allows',
};

export const REQUEST_CORRECTED_WARNING_CODE = 'REQUEST_CORRECTED';

/** The warning a check carries when its request was repaired; the corrections themselves are beside it. */
export function requestCorrectedWarning(corrections: readonly RequestCorrection[]): Warning {
  const n = corrections.length;
  return {
    code: REQUEST_CORRECTED_WARNING_CODE,
    description: `The request was repaired before it was sent to the payer: ${n} change${n === 1 ? '' : 's'}, listed in requestCorrections.`,
  };
}

export function repairCheckRequest(body: unknown, options: RepairOptions = {}): RepairedRequest {
  if (!isObject(body)) return { body, corrections: [] };
  const corrections: RequestCorrection[] = [];
  const note = (field: string, code: CorrectionCode, detail = '') =>
    corrections.push({ field, code, description: `${CORRECTION_DESCRIPTIONS[code]}${detail}` });
  // Copy on write: only a part with a repair becomes a new object; the others stay the ones the client sent.
  const copies: Record<string, Record<string, unknown>> = {};
  const read = (name: Part) => (copies[name] ?? (isObject(body[name]) ? body[name] : undefined)) as Fields;
  const write = (name: Part, key: string, value: string) => {
    copies[name] ??= { ...(body[name] as Fields) };
    copies[name][key] = value;
  };

  moveSuffix(read('subscriber'), (key, value) => write('subscriber', key, value), note);
  for (const { part, key, max, person } of NAME_FIELDS) {
    const value = read(part)?.[key];
    if (typeof value !== 'string') continue;
    const repaired = repairName(value, `${part}.${key}`, max, person, note);
    if (repaired !== value) write(part, key, repaired);
  }
  const memberId = read('subscriber')?.memberId;
  if (typeof memberId === 'string') {
    const mbi = options.memberIdFormat === 'mbi';
    const keep = options.keepMemberIdSeparators && !mbi;
    const repaired = keep ? memberId.trim() : memberId.replace(/[\s-]+/gu, '');
    if (repaired && repaired !== memberId) {
      write('subscriber', 'memberId', repaired);
      note('subscriber.memberId', 'MEMBER_ID_SEPARATORS_REMOVED');
    }
    if (mbi && repaired && repaired !== repaired.toUpperCase()) {
      write('subscriber', 'memberId', repaired.toUpperCase());
      note('subscriber.memberId', 'MEMBER_ID_UPPERCASED');
    }
  }
  for (const [part, key] of [
    ['subscriber', 'dateOfBirth'],
    ['encounter', 'dateOfService'],
  ] as const) {
    const value = read(part)?.[key];
    const m = typeof value === 'string' ? /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/u.exec(value) : null;
    if (m) {
      write(part, key, `${m[1]}${m[2]}${m[3]}`);
      note(`${part}.${key}`, 'DATE_REFORMATTED');
    }
  }
  return corrections.length ? { body: { ...body, ...copies }, corrections } : { body, corrections };
}

type Part = 'subscriber' | 'provider' | 'encounter';
type Fields = Record<string, unknown> | undefined;
type Note = (field: string, code: CorrectionCode, detail?: string) => void;

/** `DOE JR` → last name `DOE`, suffix `JR`; only when no other suffix was given and a last name remains. */
function moveSuffix(subscriber: Fields, write: (key: string, value: string) => void, note: Note): void {
  const last = subscriber?.lastName;
  if (typeof last !== 'string') return;
  const m = SUFFIX_AT_END.exec(last);
  if (!m) return;
  const suffix = m[2]!.toUpperCase();
  const given = subscriber?.suffix;
  if (given !== undefined && (typeof given !== 'string' || given.trim().toUpperCase() !== suffix)) return;
  write('lastName', m[1]!);
  write('suffix', suffix);
  note('subscriber.lastName', 'NAME_SUFFIX_MOVED');
}

function repairName(value: string, field: string, max: number, person: boolean, note: Note): string {
  let v = value;
  let capitals = false;
  // Plain ASCII (nearly every name) has nothing to fold: skip the Unicode normalization.
  const folded = ASCII.test(v) ? v : foldLatin(v);
  if (folded !== v) {
    v = folded;
    capitals = true;
    note(field, 'NAME_DIACRITICS_FOLDED');
  }
  if (person && /['’‘`.]/u.test(v)) {
    v = v.replace(/['’‘`.]/gu, '');
    capitals = true;
    note(field, 'NAME_PUNCTUATION_REMOVED');
  }
  const spaced = EXTRA_SPACE.test(v) ? v.trim().replace(/\s+/gu, ' ') : v;
  if (spaced !== v) {
    v = spaced;
    note(field, 'NAME_SPACES_REMOVED');
  }
  if (capitals) v = v.toUpperCase();
  const characters = [...v];
  if (characters.length > max) {
    v = characters.slice(0, max).join('').trimEnd();
    note(field, 'TRIMMED_TO_MAX_LENGTH', ` (${max} characters).`);
  }
  // Nothing left (a name of only punctuation) is not a repair: the validator names the field instead.
  return v ? v : value;
}

/**
 * Marks are dropped only from Latin letters (`José` → `JOSE`); a mark of another script is part of its
 * letter, so such a name is left as written rather than changed into another name.
 */
function foldLatin(value: string): string {
  const stripped = value
    .normalize('NFD')
    .replace(/([A-Za-z])\p{M}+/gu, '$1')
    .normalize('NFC');
  const folded = stripped.replace(FOLDABLE, (c) => LATIN_LETTERS[c] ?? c);
  return folded === value.normalize('NFC') && folded !== value ? value : folded;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
