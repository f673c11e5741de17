/**
 * What payer list import understands in a cell: the column names it recognises (with their synonyms), and
 * the readers of yes/no flags, enrollment, state lists and alias lists. Every reader returns the value or a
 * reason it cannot; the caller names the row and column. docs/payers.md ("Importing a clearinghouse payer
 * list") lists the same synonyms and values.
 */

export const IMPORT_FIELDS = [
  'id',
  'name',
  'payerId',
  'aliases',
  'eligibility',
  'enrollment',
  'states',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** A header as compared: lower case, letters and digits only (`Payer ID`, `payer_id`, `payerId` → `payerid`). */
export const headerKey = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Recognised column names per field, as header keys; the first column found wins. */
export const COLUMN_SYNONYMS: Record<ImportField, readonly string[]> = {
  id: ['id', 'payerid', 'tradingpartnerid', 'tradingpartnerserviceid', 'cpid', 'primarypayerid'],
  name: ['name', 'payername', 'displayname', 'payer', 'organizationname'],
  payerId: ['nm109', 'x12payerid', 'edipayerid', 'receiverpayerid'],
  aliases: ['aliases', 'alias', 'payeridaliases', 'otherids', 'alternateids', 'alternatepayerids'],
  eligibility: [
    'eligibility',
    '270',
    '270supported',
    '270271',
    'eligibility270',
    'eligibilitysupported',
    'eligibilitycheck',
    'realtimeeligibility',
  ],
  enrollment: [
    'enrollment',
    'enrollmentrequired',
    'eligibilityenrollment',
    'eligibilityenrollmentrequired',
    '270enrollment',
    '270enrollmentrequired',
    'enrollment270',
  ],
  states: ['states', 'state', 'operatingstates', 'statesserved'],
};

/** Maps a header key to its field. */
const FIELD_OF = new Map<string, ImportField>(
  IMPORT_FIELDS.flatMap((field) => COLUMN_SYNONYMS[field].map((key) => [key, field] as const)),
);
export const fieldOfHeader = (header: string): ImportField | undefined => FIELD_OF.get(headerKey(header));

export type Read<T> = { value: T } | { problem: string };

/** A cell value quoted in a problem message: short, whatever the file holds. */
export function shown(value: string): string {
  const v = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(v);
}

const YES = new Set(['y', 'yes', 'true', '1', 'supported', 'x']);
const NO = new Set(['n', 'no', 'false', '0', 'notsupported', 'unsupported']);

export interface EligibilityCell {
  eligibility?: boolean;
  /** Stedi's ENROLLMENT_REQUIRED in a support column: supported, once enrolled. */
  enrollment?: 'required';
}

/** Y/N, yes/no, true/false, 1/0, SUPPORTED / NOT_SUPPORTED / ENROLLMENT_REQUIRED; empty: not said. */
export function readEligibility(raw: string | boolean | undefined): Read<EligibilityCell> {
  if (raw === undefined) return { value: {} };
  if (typeof raw === 'boolean') return { value: { eligibility: raw } };
  const key = headerKey(raw);
  if (key === '') return { value: {} };
  if (YES.has(key)) return { value: { eligibility: true } };
  if (NO.has(key)) return { value: { eligibility: false } };
  if (key === 'enrollmentrequired') return { value: { eligibility: true, enrollment: 'required' } };
  return {
    problem: `${shown(raw)} is not a yes/no value (Y/N, yes/no, true/false, SUPPORTED/NOT_SUPPORTED)`,
  };
}

const ENROLLMENT_REQUIRED = new Set([...YES, 'required', 'enrollmentrequired']);
const ENROLLMENT_NOT_REQUIRED = new Set([...NO, 'notrequired', 'none', 'enrollmentnotrequired']);

/** Y/N, yes/no, true/false, required / not required; empty: not said. */
export function readEnrollment(
  raw: string | boolean | undefined,
): Read<'required' | 'not-required' | undefined> {
  if (raw === undefined) return { value: undefined };
  if (typeof raw === 'boolean') return { value: raw ? 'required' : 'not-required' };
  const key = headerKey(raw);
  if (key === '') return { value: undefined };
  if (ENROLLMENT_REQUIRED.has(key)) return { value: 'required' };
  if (ENROLLMENT_NOT_REQUIRED.has(key)) return { value: 'not-required' };
  return { problem: `${shown(raw)} is not a yes/no value (Y/N, required / not required)` };
}

/** The 50 states, DC and the inhabited territories (payers list PR and the others as operating states). */
export const US_STATES = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH ' +
    'OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP'
  ).split(' '),
);
/** Words that mean "everywhere": no states are recorded. */
const EVERYWHERE = new Set(['all', 'national', 'nationwide', 'us', 'usa', '*']);

/** Two-letter codes separated by `;`, `|`, `,` or spaces (or a JSON array); each once, upper case. */
export function readStates(raw: string | string[] | undefined): Read<string[] | undefined> {
  if (raw === undefined) return { value: undefined };
  const parts = (Array.isArray(raw) ? raw : raw.split(/[;|,\s]+/)).map((s) => s.trim()).filter(Boolean);
  if (!parts.length) return { value: undefined };
  if (parts.length === 1 && EVERYWHERE.has(parts[0]!.toLowerCase())) return { value: undefined };
  const bad = parts.filter((s) => !US_STATES.has(s.toUpperCase()));
  if (bad.length) {
    const list = bad.slice(0, 3).map(shown).join(', ');
    const more = bad.length > 3 ? ` and ${bad.length - 3} more` : '';
    return { problem: `${list}${more} ${bad.length === 1 ? 'is' : 'are'} not a US state code` };
  }
  return { value: [...new Set(parts.map((s) => s.toUpperCase()))] };
}

/** Ids separated by `;` or `|` (or a JSON array), trimmed, each once. */
export function readList(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return [];
  const parts = Array.isArray(raw) ? raw : raw.split(/[;|]/);
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

export type CellValue = string | string[] | boolean;

/** One CSV row or JSON item before validation: the cell read for each field, with the column it came from. */
export interface RawRecord {
  /** CSV: file line; JSON: item number from 1. */
  row: number;
  cells: Partial<Record<ImportField, { column: string; value: CellValue }>>;
  /** Left out by the `only` filter. */
  excluded?: true;
}

export interface ProblemAt {
  row: number;
  column?: string;
  message: string;
}

export interface RecordList {
  records: RawRecord[];
  /** CSV headers (or JSON keys of the first item) that no field reads. */
  ignoredColumns: string[];
  problems: ProblemAt[];
}

export class ProblemList {
  readonly list: ProblemAt[] = [];
  add(row: number, column: string | undefined, message: string): void {
    this.list.push(column ? { row, column, message } : { row, message });
  }
}

export interface RowFilter {
  column: string;
  accepts(value: CellValue): boolean;
}

/** `Column=value1|value2`, or the object form; values compared as header keys. */
export function parseRowFilter(
  only: string | { column: string; values: readonly string[] },
): Read<RowFilter> {
  let column: string;
  let values: readonly string[];
  if (typeof only === 'string') {
    const at = only.indexOf('=');
    column = only.slice(0, at).trim();
    values = only.slice(at + 1).split('|');
    if (at < 0 || !column) return { problem: `${shown(only)} is not column=value|value` };
  } else ({ column, values } = only);
  const keys = new Set(values.map(headerKey).filter(Boolean));
  if (!keys.size) return { problem: 'names no value to keep' };
  const accepts = (value: CellValue) =>
    typeof value === 'boolean'
      ? keys.has(String(value))
      : (Array.isArray(value) ? value : [value]).some((v) => keys.has(headerKey(v)));
  return { value: { column, accepts } };
}
