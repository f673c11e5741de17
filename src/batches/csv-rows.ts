/**
 * RFC 4180 records read one at a time (issue 26 item 1): commas, double quotes around fields, `""` inside
 * them, CRLF or LF line ends. The reader never holds more than the record it returns, and a record longer
 * than its limit is skipped to its end without being kept, so a file of one 8 MB row costs a scan, not a
 * copy. Pure: text in, records out.
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
/** Empty lines passed over at once. */
const BLANK_RUN = 64 * 1024;
const BREAK_OR_QUOTE = /[\r\n"]/g;

/** `start` and `end` delimit the record's text, its line break excluded. */
export type CsvRecord =
  | { line: number; start: number; end: number; fields: string[]; tooLong?: undefined }
  /** A record longer than the reader's limit: its fields were not kept. */
  | { line: number; start: number; end: number; tooLong: true; fields?: undefined };

export class CsvRecordReader {
  private pos: number;
  private line = 1;
  private readonly src: string;
  private readonly maxRecordChars: number;

  constructor(text: string, maxRecordChars = Number.POSITIVE_INFINITY) {
    this.src = text;
    this.pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.maxRecordChars = maxRecordChars;
  }

  get done(): boolean {
    return this.pos >= this.src.length;
  }

  /** Characters read so far (for a caller that yields to the event loop every so many). */
  get position(): number {
    return this.pos;
  }

  /**
   * The next record (an empty line is one empty field); call only while not `done`. A run of empty lines
   * is passed over as one empty record of at most BLANK_RUN characters, without a record per line.
   */
  next(): CsvRecord {
    const src = this.src;
    const n = src.length;
    const blankEnd = Math.min(n, this.pos + BLANK_RUN);
    let b = this.pos;
    for (let c = src.charCodeAt(b); b < blankEnd && (c === LF || c === CR); c = src.charCodeAt(++b)) {
      if (c === LF || src.charCodeAt(b + 1) !== LF) this.line++;
    }
    if (b > this.pos) {
      const blank = { line: this.line, start: this.pos, end: b, fields: [''] };
      this.pos = b;
      return blank;
    }
    const start = this.pos;
    const line = this.line;
    const limit = start + this.maxRecordChars;
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    let fieldStart = start;
    let seg = start;
    for (let i = start; i < n; i++) {
      if (i >= limit) return this.skip(start, i, quoted, fieldStart === i, line);
      const c = src.charCodeAt(i);
      if (quoted) {
        if (c === QUOTE) {
          if (src.charCodeAt(i + 1) === QUOTE) {
            field += src.slice(seg, i + 1);
            i++;
          } else {
            field += src.slice(seg, i);
            quoted = false;
          }
          seg = i + 1;
        } else if (c === LF) this.line++;
      } else if (c === QUOTE && i === fieldStart) {
        quoted = true;
        seg = i + 1;
      } else if (c === COMMA) {
        fields.push(field + src.slice(seg, i));
        field = '';
        seg = i + 1;
        fieldStart = i + 1;
      } else if (c === LF || c === CR) {
        fields.push(field + src.slice(seg, i));
        this.pos = c === CR && src.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
        this.line++;
        return { line, start, end: i, fields };
      }
    }
    fields.push(field + src.slice(seg, n));
    this.pos = n;
    return { line, start, end: n, fields };
  }

  /** Past the end of an over-long record, keeping nothing: native searches, not a loop per character. */
  private skip(
    start: number,
    from: number,
    quotedAtStart: boolean,
    atFieldStart: boolean,
    line: number,
  ): CsvRecord {
    const src = this.src;
    const n = src.length;
    let quoted = quotedAtStart;
    let i = from;
    let end = n;
    while (i < n) {
      if (quoted) {
        const q = src.indexOf('"', i);
        const stop = q < 0 ? n : q;
        for (let l = src.indexOf('\n', i); l >= 0 && l < stop; l = src.indexOf('\n', l + 1)) this.line++;
        if (q < 0) i = n;
        else if (src.charCodeAt(q + 1) === QUOTE) i = q + 2;
        else {
          quoted = false;
          i = q + 1;
        }
        continue;
      }
      BREAK_OR_QUOTE.lastIndex = i;
      const k = BREAK_OR_QUOTE.exec(src)?.index ?? n;
      if (k === n) i = n;
      else if (src.charCodeAt(k) === QUOTE) {
        // A quote opens a quoted field only at the field's start.
        quoted = k === from ? atFieldStart : src.charCodeAt(k - 1) === COMMA;
        i = k + 1;
      } else {
        end = k;
        i = src.charCodeAt(k) === CR && src.charCodeAt(k + 1) === LF ? k + 2 : k + 1;
        this.line++;
        break;
      }
    }
    this.pos = Math.min(i, n);
    return { line, start, end, tooLong: true };
  }
}

/** Whether a record is an empty line (skipped everywhere). */
export const isBlankRecord = (r: CsvRecord): boolean => r.fields?.length === 1 && r.fields[0] === '';

/** Every non-empty record of a whole text, unbounded: for files the caller made (the results CSV in tests). */
export function parseCsvRows(text: string): { line: number; fields: string[] }[] {
  const reader = new CsvRecordReader(text);
  const rows: { line: number; fields: string[] }[] = [];
  while (!reader.done) {
    const r = reader.next();
    if (r.fields && !isBlankRecord(r)) rows.push({ line: r.line, fields: r.fields });
  }
  return rows;
}
