/**
 * X12 tokenizer: one pass over the text that records segment boundaries and element-separator offsets in
 * typed arrays. No field string is made until it is read (`element`, `components`, `repetitions`), so a
 * parser that reads only what it needs allocates little. Delimiters come from the ISA (see isa.ts); a
 * later ISA with other delimiters switches them from that segment on.
 *
 * Tolerated: a UTF-8 BOM, whitespace/CR/LF/indentation between segments, trailing whitespace, lowercase
 * segment ids, any single-character terminator (`~`, newline, 0x1D, `!`, `\`), and a terminator missing
 * at a line break (split there, with an issue).
 */

import { findIsa, isAlnum, readIsa } from './isa.ts';
import { error, IssueLog, warning } from './issues.ts';
import { type Delimiters, X12Error, type X12Issue } from './types.ts';

const LF = 10;
const BOM = 0xfeff;

/** Whitespace that may sit between segments or at a segment's end (never a delimiter here). */
const isSpace = (c: number) =>
  c === 32 || c === 9 || c === 13 || c === LF || c === 11 || c === 12 || c === BOM;

interface Region {
  fromSegment: number;
  delimiters: Delimiters;
}

export class X12Tokens {
  constructor(
    readonly text: string,
    /** Delimiters of the first interchange. */
    readonly delimiters: Delimiters,
    readonly segmentCount: number,
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    /** firstSeparator[i]..firstSeparator[i + 1] index `separators` for segment i. */
    private readonly firstSeparator: Int32Array,
    private readonly separators: Int32Array,
    private readonly regions: Region[],
    readonly issues: X12Issue[],
  ) {}

  /** 1-based position of segment i in the input, as issues report it. */
  position(i: number): number {
    return i + 1;
  }

  /**
   * Slots (see CODE_SLOTS) of the segment ids already read: the parser asks for most of them several
   * times. 0 when not read yet, or when the id is not a 2–3 character code (then it is read again).
   */
  private idSlots: Uint16Array | undefined;

  /** Upper-case segment id (`ISA`, `EB`, ...). */
  segmentId(i: number): string {
    this.idSlots ??= new Uint16Array(this.segmentCount);
    const slots = this.idSlots;
    const slot = slots[i]!;
    if (slot !== 0) return CODE_STRINGS[slot]!;
    const start = this.starts[i]!;
    const end =
      this.firstSeparator[i + 1]! > this.firstSeparator[i]!
        ? this.separators[this.firstSeparator[i]!]!
        : this.ends[i]!;
    const length = end - start;
    if (length === 2 || length === 3) {
      const known = codeSlot(this.text, start, end);
      if (known !== 0) {
        slots[i] = known;
        return CODE_STRINGS[known]!;
      }
    }
    return this.text.slice(start, end).toUpperCase();
  }

  /**
   * The interned slot of segment i's id (1 ≤ slot < CODE_KEY_COUNT + 1), or 0 when the id is not 2–3
   * letters or digits: a per-segment table lookup by number (snip.ts) instead of by string.
   */
  segmentSlot(i: number): number {
    const slot = this.idSlots?.[i];
    if (slot !== undefined && slot !== 0) return slot;
    this.segmentId(i);
    return this.idSlots![i]!;
  }

  /** True when the segment id is 2–3 letters or digits. */
  hasValidId(i: number): boolean {
    const id = this.segmentId(i);
    return id.length >= 2 && id.length <= 3 && /^[A-Z0-9]+$/.test(id);
  }

  /** Number of elements after the segment id. */
  elementCount(i: number): number {
    return this.firstSeparator[i + 1]! - this.firstSeparator[i]!;
  }

  /** Element n (1-based, as in the guides) as sent; '' when absent. n = 0 is the segment id. */
  element(i: number, n: number): string {
    if (n === 0) return this.segmentId(i);
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return '';
    const start = this.separators[first + n - 1]! + 1;
    const end = n < count ? this.separators[first + n]! : this.ends[i]!;
    return start >= end ? '' : this.text.slice(start, end);
  }

  /**
   * Element n without surrounding whitespace (real files pad elements with spaces): the same string as
   * `element(i, n).trim()`, trimmed by offset so that only one string is made.
   */
  value(i: number, n: number): string {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return n === 0 ? this.segmentId(i).trim() : '';
    return trimmedSlice(
      this.text,
      this.separators[first + n - 1]! + 1,
      n < count ? this.separators[first + n]! : this.ends[i]!,
    );
  }

  /**
   * Element n as a code: trimmed and upper-cased. Short codes (1–3 letters or digits, as almost every code
   * element is) are interned, so no string is made and table lookups hit a cached hash.
   */
  code(i: number, n: number): string {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return '';
    const start = this.separators[first + n - 1]! + 1;
    const end = n < count ? this.separators[first + n]! : this.ends[i]!;
    return codeAt(this.text, start, end);
  }

  /**
   * Element n as `value(i, n).toUpperCase()` would give it; short codes are interned (no string is made).
   * Unlike `code`, any lower-case letter is upper-cased, not only ASCII ones.
   */
  upperValue(i: number, n: number): string {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return n === 0 ? this.segmentId(i).trim().toUpperCase() : '';
    const start = this.separators[first + n - 1]! + 1;
    const end = n < count ? this.separators[first + n]! : this.ends[i]!;
    const short = internedCode(this.text, start, end);
    if (short !== undefined) return short;
    const value = trimmedSlice(this.text, start, end);
    for (let k = 0; k < value.length; k++) {
      const c = value.charCodeAt(k);
      if ((c >= 97 && c <= 122) || c >= 128) return value.toUpperCase();
    }
    return value;
  }

  /**
   * True when `code(i, n)` is certainly longer than `length` characters, found without making it: its
   * trimmed text is longer and all ASCII (upper-casing ASCII keeps the length). False when unsure.
   */
  codeIsLongerThan(i: number, n: number, length: number): boolean {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return false;
    const text = this.text;
    let start = this.separators[first + n - 1]! + 1;
    let end = n < count ? this.separators[first + n]! : this.ends[i]!;
    while (start < end && isTrimSpace(text.charCodeAt(start))) start++;
    while (end > start && isTrimSpace(text.charCodeAt(end - 1))) end--;
    if (end - start <= length) return false;
    for (let k = start; k < end; k++) if (text.charCodeAt(k) >= 128) return false;
    return true;
  }

  /** Element n split on the repetition separator (none in 4010), each part as `code` reads it ('' kept). */
  repetitionCodes(i: number, n: number): string[] {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return [];
    const start = this.separators[first + n - 1]! + 1;
    const end = n < count ? this.separators[first + n]! : this.ends[i]!;
    const repetition = this.delimitersAt(i).repetition;
    const text = this.text;
    const codes: string[] = [];
    let from = start;
    if (repetition) {
      const r = repetition.charCodeAt(0);
      for (let k = start; k < end; k++) {
        if (text.charCodeAt(k) !== r) continue;
        codes.push(codeAt(text, from, k));
        from = k + 1;
      }
    }
    codes.push(codeAt(text, from, end));
    return codes;
  }

  /**
   * Element n as a code key (`codeKeyOf` of `code(i, n)`), read without making or interning a string:
   * -1 when the element is empty, -2 when it is not 1–3 letters or digits.
   */
  codeKey(i: number, n: number): number {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return -1;
    return keyAt(
      this.text,
      this.separators[first + n - 1]! + 1,
      n < count ? this.separators[first + n]! : this.ends[i]!,
    );
  }

  /** Element n split on the component separator (e.g. EB13 `HC:97110` → [`HC`, `97110`]). */
  components(i: number, n: number): string[] {
    const raw = this.element(i, n);
    return raw === '' ? [] : raw.split(this.delimitersAt(i).component);
  }

  /** Element n split on the repetition separator; one value when the interchange has none (4010). */
  repetitions(i: number, n: number): string[] {
    const raw = this.element(i, n);
    if (raw === '') return [];
    const repetition = this.delimitersAt(i).repetition;
    return repetition ? raw.split(repetition) : [raw];
  }

  /** True when element n is absent or only whitespace: `value(i, n) === ''` without making a string. */
  isBlank(i: number, n: number): boolean {
    const first = this.firstSeparator[i]!;
    const count = this.firstSeparator[i + 1]! - first;
    if (n < 1 || n > count) return true;
    const text = this.text;
    const end = n < count ? this.separators[first + n]! : this.ends[i]!;
    for (let k = this.separators[first + n - 1]! + 1; k < end; k++)
      if (!isTrimSpace(text.charCodeAt(k))) return false;
    return true;
  }

  /** Offsets of the segment's text in the input: its first character, and the end before its terminator. */
  textRange(i: number): { start: number; end: number } {
    return { start: this.starts[i]!, end: this.ends[i]! };
  }

  /** The segment's text without its terminator. */
  segmentText(i: number): string {
    return this.text.slice(this.starts[i]!, this.ends[i]!);
  }

  /** All elements of segment i (index 0 is the id): for small inputs, tests and `--raw`. */
  elements(i: number): string[] {
    const out = [this.segmentId(i)];
    const count = this.elementCount(i);
    for (let n = 1; n <= count; n++) out.push(this.element(i, n));
    return out;
  }

  delimitersAt(i: number): Delimiters {
    const regions = this.regions;
    if (regions.length === 1) return regions[0]!.delimiters;
    let found = regions[0]!.delimiters;
    for (const r of regions) {
      if (r.fromSegment > i) break;
      found = r.delimiters;
    }
    return found;
  }
}

/**
 * Interned upper-case codes of 1–3 letters or digits (segment ids and code elements): no string is made
 * per read. A code's slot is computed from its characters (36 symbols, case-insensitive, plus "none" for
 * the 2nd and 3rd place), so a lookup is two array reads.
 */
const CODE_SLOTS = new Uint16Array(36 * 37 * 37);
/** CODE_STRINGS[slot]; slot 0 is never used. */
const CODE_STRINGS: string[] = [''];
/** Character code (< 128) → 0–35 for a digit or letter (either case), -1 otherwise. */
const ALNUM_INDEX = new Int8Array(128).fill(-1);
for (let c = 48; c <= 57; c++) ALNUM_INDEX[c] = c - 48;
for (let c = 65; c <= 90; c++) ALNUM_INDEX[c] = ALNUM_INDEX[c + 32] = c - 55;

const alnumIndex = (c: number) => (c < 128 ? ALNUM_INDEX[c]! : -1);

/**
 * The engine's own copy of `s` (a property key is kept in the engine's string table): comparing it with a
 * literal such as `'EB'` is then a pointer comparison, and hash lookups reuse its stored hash.
 */
function internalize(s: string): string {
  return Object.keys({ [s]: 0 })[0]!;
}

/** The slot of text[start, end) upper-cased when it is 1–3 letters or digits (interned on first use); else 0. */
function codeSlot(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < 1 || length > 3) return 0;
  const i0 = alnumIndex(text.charCodeAt(start));
  if (i0 < 0) return 0;
  let i1 = 36;
  let i2 = 36;
  if (length > 1) {
    i1 = alnumIndex(text.charCodeAt(start + 1));
    if (i1 < 0) return 0;
    if (length > 2) {
      i2 = alnumIndex(text.charCodeAt(start + 2));
      if (i2 < 0) return 0;
    }
  }
  const key = (i0 * 37 + i1) * 37 + i2;
  const slot = CODE_SLOTS[key]!;
  if (slot !== 0) return slot;
  CODE_SLOTS[key] = CODE_STRINGS.length;
  CODE_STRINGS.push(internalize(text.slice(start, end).toUpperCase()));
  return CODE_SLOTS[key]!;
}

/** Number of distinct code keys: codes of 1–3 letters or digits, case-insensitive. */
export const CODE_KEY_COUNT = 36 * 37 * 37;

/** text[start, end) trimmed, as a code key (0 ≤ key < CODE_KEY_COUNT); -1 when blank, -2 when not a code. */
function keyAt(text: string, start: number, end: number): number {
  while (start < end && isTrimSpace(text.charCodeAt(start))) start++;
  while (end > start && isTrimSpace(text.charCodeAt(end - 1))) end--;
  const length = end - start;
  if (length === 0) return -1;
  if (length > 3) return -2;
  const i0 = alnumIndex(text.charCodeAt(start));
  const i1 = length > 1 ? alnumIndex(text.charCodeAt(start + 1)) : 36;
  const i2 = length > 2 ? alnumIndex(text.charCodeAt(start + 2)) : 36;
  if (i0 < 0 || i1 < 0 || i2 < 0) return -2;
  return (i0 * 37 + i1) * 37 + i2;
}

/** The code key of `code` (see `X12Tokens.codeKey`). */
export function codeKeyOf(code: string): number {
  return keyAt(code, 0, code.length);
}

/** text[start, end) upper-cased and interned when it is 1–3 letters or digits; otherwise undefined. */
function internedCode(text: string, start: number, end: number): string | undefined {
  const slot = codeSlot(text, start, end);
  return slot === 0 ? undefined : CODE_STRINGS[slot];
}

/** Whitespace as String.prototype.trim removes it (WhiteSpace and LineTerminator). */
function isTrimSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return (
    c >= 160 &&
    (c === 160 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff)
  );
}

/** text.slice(start, end).trim(), without making the untrimmed string. */
function trimmedSlice(text: string, start: number, end: number): string {
  while (start < end && isTrimSpace(text.charCodeAt(start))) start++;
  while (end > start && isTrimSpace(text.charCodeAt(end - 1))) end--;
  return start >= end ? '' : text.slice(start, end);
}

/** text[start, end) trimmed and upper-cased; interned when it is a short code. */
function codeAt(text: string, start: number, end: number): string {
  const short = internedCode(text, start, end);
  if (short !== undefined) return short;
  if (start >= end) return '';
  const value = trimmedSlice(text, start, end);
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c >= 97 && c <= 122) return value.toUpperCase();
  }
  return value;
}

/** After a line break inside a segment: does a segment (id then element separator) start here? */
function segmentStartsAt(text: string, j: number, elementCode: number): boolean {
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  let n = 0;
  while (n < 4 && isAlnum(text.charCodeAt(j + n))) n++;
  return n >= 2 && n <= 3 && text.charCodeAt(j + n) === elementCode;
}

function firstContent(text: string): number {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  // A UTF-8 BOM decoded as latin1.
  if (text.startsWith('\u00ef\u00bb\u00bf', i)) i += 3;
  return i;
}

/** Tokenizes an interchange; throws X12Error (with typed issues) when there is no readable ISA. */
export function tokenize(text: string): X12Tokens {
  const begin = firstContent(text);
  if (begin >= text.length) throw new X12Error('The input is empty', [error('X12_EMPTY')]);
  const isaAt = text.startsWith('ISA', begin) || text.startsWith('isa', begin) ? begin : findIsa(text, begin);
  if (isaAt < 0) throw new X12Error('Not an X12 interchange: no ISA segment', [error('X12_NO_ISA')]);
  const log = new IssueLog();
  if (isaAt > begin) log.add(warning('X12_LEADING_GARBAGE', `${isaAt - begin} characters were skipped.`, 1));
  const first = readIsa(text, isaAt);
  log.addAll(first.issues);
  const regions: Region[] = [{ fromSegment: 0, delimiters: first.delimiters }];

  const length = text.length;
  const codes = characterCodes(text, isaAt);
  let segmentCapacity = Math.max(16, (length / 24) | 0);
  let separatorCapacity = Math.max(64, (length / 5) | 0);
  let starts: Int32Array<ArrayBuffer> = new Int32Array(segmentCapacity);
  let ends = new Int32Array(segmentCapacity);
  let firstSeparator = new Int32Array(segmentCapacity + 1);
  let separators = new Int32Array(separatorCapacity);
  let count = 0;
  let separatorCount = 0;
  let elementCode = first.delimiters.element.charCodeAt(0);
  let terminatorCode = first.delimiters.segment.charCodeAt(0);
  let classes = characterClasses(elementCode, terminatorCode);
  let componentCode = first.delimiters.component.charCodeAt(0);
  let repetitionCode = first.delimiters.repetition?.charCodeAt(0) ?? -1;
  let i = isaAt;
  if (text.includes('\uFFFD', isaAt)) log.add(warning('X12_REPLACEMENT_CHARACTER'));

  for (;;) {
    let c = 0;
    while (i < length) {
      c = codes[i]!;
      if (c === terminatorCode || isSpace(c)) i++;
      else break;
    }
    if (i >= length) break;
    if (count > 0 && (c === 73 || c === 105) && isIsaAt(text, i)) {
      const next = readIsaOrNull(text, i, count + 1, log);
      if (next) {
        const previous = regions[regions.length - 1]!.delimiters;
        if (!sameDelimiters(previous, next.delimiters)) {
          log.add(warning('X12_DELIMITERS_CHANGED', undefined, count + 1, 'ISA'));
          regions.push({ fromSegment: count, delimiters: next.delimiters });
          elementCode = next.delimiters.element.charCodeAt(0);
          terminatorCode = next.delimiters.segment.charCodeAt(0);
          classes = characterClasses(elementCode, terminatorCode);
          componentCode = next.delimiters.component.charCodeAt(0);
          repetitionCode = next.delimiters.repetition?.charCodeAt(0) ?? -1;
        }
      }
    }
    if (count === segmentCapacity) {
      segmentCapacity *= 2;
      starts = grow(starts, segmentCapacity);
      ends = grow(ends, segmentCapacity);
      firstSeparator = grow(firstSeparator, segmentCapacity + 1);
    }
    const start = i;
    firstSeparator[count] = separatorCount;
    let brokenLine = false;
    let control = -1;
    for (i++; i < length; i++) {
      const ch = codes[i]!;
      // Most characters are printable and neither delimiter: compared directly, they skip the table read.
      if (ch !== elementCode && ch !== terminatorCode && ch >= 32) continue;
      const kind = classes[ch]!;
      if (kind === 0) {
        // A control character inside the segment (trailing ones are trimmed below and not counted).
        if (control < 0 && ch < 32 && ch !== componentCode && ch !== repetitionCode) control = i;
        continue;
      }
      if (kind === ELEMENT) {
        if (separatorCount === separatorCapacity) {
          separatorCapacity *= 2;
          separators = grow(separators, separatorCapacity);
        }
        separators[separatorCount++] = i;
      } else if (kind === TERMINATOR) {
        break;
      } else if (segmentStartsAt(text, i + 1, elementCode)) {
        brokenLine = true;
        break;
      } else if (control < 0) {
        control = i;
      }
    }
    let end = i;
    while (end > start + 1 && isSpace(text.charCodeAt(end - 1))) end--;
    // Trimming never crosses the last separator: an element that was only spaces reads as ''.
    if (separatorCount > firstSeparator[count]! && end <= separators[separatorCount - 1]!)
      end = separators[separatorCount - 1]! + 1;
    starts[count] = start;
    ends[count] = end;
    count++;
    if (brokenLine) log.add(warning('X12_MISSING_TERMINATOR', undefined, count));
    if (control >= 0 && control < end) {
      const what =
        codes[control] === LF
          ? 'a line feed'
          : `U+${codes[control]!.toString(16).toUpperCase().padStart(4, '0')}`;
      log.add(warning('X12_CONTROL_CHARACTER', `It holds ${what}.`, count));
    }
    i++;
  }
  firstSeparator[count] = separatorCount;
  return new X12Tokens(
    text,
    first.delimiters,
    count,
    starts,
    ends,
    firstSeparator,
    separators,
    regions,
    log.finish(),
  );
}

const ELEMENT = 1;
const TERMINATOR = 2;
const LINE_BREAK = 3;

const CLASS_TABLES = new Map<number, Uint8Array>();

/** One lookup per character instead of three comparisons in the hot loop; tables are kept per delimiter pair. */
function characterClasses(elementCode: number, terminatorCode: number): Uint8Array {
  const key = elementCode * 65536 + terminatorCode;
  const cached = CLASS_TABLES.get(key);
  if (cached) return cached;
  const classes = new Uint8Array(65536);
  if (CLASS_TABLES.size < 64) CLASS_TABLES.set(key, classes);
  if (terminatorCode !== LF) classes[LF] = LINE_BREAK;
  classes[elementCode] = ELEMENT;
  classes[terminatorCode] = TERMINATOR;
  return classes;
}

const WIDE = /[\u0100-\uffff]/g;

/**
 * The text's UTF-16 code units as a typed array: a typed-array scan runs about twice as fast as
 * charCodeAt. Latin-1 bytes when every unit after the ISA fits in one (offsets stay the same); 16-bit
 * units otherwise, so that no wide character can alias a delimiter.
 */
function characterCodes(text: string, from: number): Uint8Array | Uint16Array {
  WIDE.lastIndex = from;
  const wide = WIDE.test(text);
  WIDE.lastIndex = 0;
  if (!wide) return Buffer.from(text, 'latin1');
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

function grow(array: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(capacity);
  bigger.set(array);
  return bigger;
}

function isIsaAt(text: string, i: number): boolean {
  const s = text.charCodeAt(i + 1) & 0xdf;
  const a = text.charCodeAt(i + 2) & 0xdf;
  return s === 83 && a === 65 && !isAlnum(text.charCodeAt(i + 3)) && !isSpace(text.charCodeAt(i + 3));
}

function readIsaOrNull(text: string, at: number, position: number, log: IssueLog) {
  try {
    const info = readIsa(text, at, position);
    log.addAll(info.issues);
    return info;
  } catch (err) {
    if (err instanceof X12Error) {
      for (const item of err.issues) log.add({ ...item, severity: 'warning' });
      return null;
    }
    throw err;
  }
}

function sameDelimiters(a: Delimiters, b: Delimiters): boolean {
  return (
    a.element === b.element &&
    a.component === b.component &&
    a.repetition === b.repetition &&
    a.segment === b.segment
  );
}
