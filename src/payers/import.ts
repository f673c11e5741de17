/**
 * Payer list import (issue 25): a clearinghouse's payer list, as CSV, as a JSON array of objects or as
 * Stedi's List Payers JSON, read into payer directory entries that name one connection. Pure: text and
 * options in, entries and problems out; the CLI writes the file or the store (the lead wires both).
 *
 * Every problem is named at once, with its row (CSV: file line; JSON: item number from 1), its column and
 * why; the list is capped (`problemCount` keeps the total). A row with a problem is not imported. Ids and
 * aliases are unique across the list: the first row keeps one, a later row repeating it is a problem.
 * Payer lists hold no PHI, so cell values may be quoted in problems (cut to 40 characters).
 */
import { csvRecords } from './import-csv.ts';
import { readJsonList } from './import-json.ts';
import {
  IMPORT_FIELDS,
  type ImportField,
  parseRowFilter,
  type RawRecord,
  type RecordList,
  type RowFilter,
  readEligibility,
  readEnrollment,
  readList,
  readStates,
  shown,
} from './import-values.ts';

export { IMPORT_FIELDS, type ImportField } from './import-values.ts';

export interface ImportedPayer {
  id: string;
  name: string;
  payerId: string;
  aliases?: string[];
  eligibility?: boolean;
  enrollment?: 'required' | 'not-required';
  states?: string[];
  connection: string | string[];
}

export interface ImportProblem {
  /** CSV: file line (1 is the header); JSON: item number from 1; 0: the file as a whole, or an option (`column` names it). */
  row: number;
  /** The column (CSV header, JSON key, or option name) the problem is in. */
  column?: string;
  message: string;
}

export interface SkippedRow {
  row: number;
  id?: string;
  /** `filtered`: not a row `only` keeps (e.g. another transaction's row). */
  reason: 'problem' | 'eligibility-not-supported' | 'filtered';
}

export type PayerListFormat = 'csv' | 'json' | 'stedi';

export interface ImportOptions {
  /** `--connection NAME`: the connection (or failover list) every imported payer names. */
  connection: string | readonly string[];
  /** Default `auto`: JSON when the text starts with `[` or `{` (Stedi's shape when its items have `stediId`, `primaryPayerId` or `transactionSupport`), else CSV. */
  format?: PayerListFormat | 'auto';
  /** `--columns id=PayerID,name=Payer Name,…` (or as an object): field → CSV header or JSON key. */
  columns?: string | Partial<Record<ImportField, string>>;
  /**
   * `--only "Transaction=270|270/271"` (or as an object): keep only the rows whose column holds one of the
   * values (compared as headers are: case, spaces and punctuation ignored). For lists with one row per payer
   * and transaction.
   */
  only?: string | { column: string; values: readonly string[] };
  /** Problems kept in `problems`; default 50. */
  maxProblems?: number;
  /** true: payers that do not support eligibility (270) are left out (listed in `skipped`). Default false. */
  skipUnsupported?: boolean;
}

export interface PayerListImport {
  format: PayerListFormat;
  entries: ImportedPayer[];
  problems: ImportProblem[];
  /** Every problem found, including those past `maxProblems`. */
  problemCount: number;
  skipped: SkippedRow[];
  /** CSV headers (or JSON keys of the first item) that no field reads. */
  ignoredColumns: string[];
}

const PAYER_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$/;
const PAYER_ID = /^[A-Za-z0-9 .&/()#-]{1,80}$/;
const MAX_ALIASES = 50;
const NAME_MAX = 60;

/** `id=PayerID,name=Payer Name`: the field before `=`, the header after it (trimmed). */
export function parseColumnMapping(text: string): {
  columns: Partial<Record<ImportField, string>>;
  problems: string[];
} {
  const columns: Partial<Record<ImportField, string>> = {};
  const problems: string[] = [];
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = pair.indexOf('=');
    const field = IMPORT_FIELDS.find((f) => f.toLowerCase() === pair.slice(0, at).trim().toLowerCase());
    const header = pair.slice(at + 1).trim();
    if (at < 0 || !header) problems.push(`${shown(pair)} is not field=column`);
    else if (!field)
      problems.push(`${shown(pair.slice(0, at))} is not a field (${IMPORT_FIELDS.join(', ')})`);
    else columns[field] = header;
  }
  return { columns, problems };
}

class Problems {
  readonly kept: ImportProblem[] = [];
  count = 0;
  constructor(private readonly max: number) {}
  add(row: number, column: string | undefined, message: string): void {
    this.count++;
    if (this.kept.length < this.max) this.kept.push(column ? { row, column, message } : { row, message });
  }
}

function detectFormat(text: string): PayerListFormat {
  return /^[\s\uFEFF]*[[{]/.test(text) ? 'json' : 'csv';
}

interface ReadOptions {
  connection: string | string[];
  mapping: Partial<Record<ImportField, string>>;
  only?: RowFilter;
  /** false: the mapping or the filter cannot be read, so no row can be read as meant. */
  usable: boolean;
}

function readOptions(options: ImportOptions, problems: Problems): ReadOptions {
  const connection = typeof options.connection === 'string' ? options.connection : [...options.connection];
  if (!connection.length || (Array.isArray(connection) && connection.some((c) => !c.trim())))
    problems.add(0, 'connection', 'no connection named: give --connection NAME');
  // Rows are still read without a connection (every problem at once), not with a mapping or filter in doubt.
  const before = problems.count;
  const out: ReadOptions = { connection, mapping: {}, usable: true };
  if (typeof options.columns === 'string') {
    const parsed = parseColumnMapping(options.columns);
    for (const p of parsed.problems) problems.add(0, 'columns', p);
    out.mapping = parsed.columns;
  } else if (options.columns) out.mapping = options.columns;
  if (options.only !== undefined) {
    const parsed = parseRowFilter(options.only);
    if ('problem' in parsed) problems.add(0, 'only', parsed.problem);
    else out.only = parsed.value;
  }
  out.usable = problems.count === before;
  return out;
}

export function importPayerList(text: string, options: ImportOptions): PayerListImport {
  const problems = new Problems(options.maxProblems ?? 50);
  let format = !options.format || options.format === 'auto' ? detectFormat(text) : options.format;
  const { connection, mapping, only, usable } = readOptions(options, problems);
  let read: RecordList = { records: [], ignoredColumns: [], problems: [] };
  if (usable && format === 'csv') read = csvRecords(text, mapping, only);
  else if (usable) {
    const json = readJsonList(text, mapping, only, format === 'stedi' ? 'stedi' : 'auto');
    format = json.stedi ? 'stedi' : 'json';
    read = json;
  }
  for (const p of read.problems) problems.add(p.row, p.column, p.message);
  const { records, ignoredColumns } = read;
  const result: PayerListImport = {
    format,
    entries: [],
    problems: problems.kept,
    problemCount: 0,
    skipped: [],
    ignoredColumns,
  };
  const taken = new Map<string, { row: number; as: 'id' | 'alias' }>();
  for (const record of records) {
    if (record.excluded) {
      result.skipped.push({ row: record.row, reason: 'filtered' });
      continue;
    }
    const before = problems.count;
    const entry = toEntry(record, connection, problems);
    if (entry) claimKeys(entry, record, taken, problems, format === 'csv' ? 'line' : 'item');
    if (!entry || problems.count > before) {
      result.skipped.push({ row: record.row, ...(entry ? { id: entry.id } : {}), reason: 'problem' });
    } else if (options.skipUnsupported && entry.eligibility === false) {
      result.skipped.push({ row: record.row, id: entry.id, reason: 'eligibility-not-supported' });
    } else {
      for (const key of [entry.id, ...(entry.aliases ?? [])]) {
        taken.set(key, { row: record.row, as: key === entry.id ? 'id' : 'alias' });
      }
      result.entries.push(entry);
    }
  }
  result.problemCount = problems.count;
  return result;
}

/** Problem lines for a person: `line 7, column "Payer ID": …`, and `… and N more problems` past the cap. */
export function describeProblems(
  result: Pick<PayerListImport, 'format' | 'problems' | 'problemCount'>,
): string[] {
  const unit = result.format === 'csv' ? 'line' : 'item';
  const lines = result.problems.map((p) => {
    const where = p.row === 0 ? (p.column ? 'options' : 'file') : `${unit} ${p.row}`;
    return `${where}${p.column ? `, ${p.row === 0 ? '' : 'column '}${shown(p.column)}` : ''}: ${p.message}`;
  });
  const more = result.problemCount - result.problems.length;
  if (more > 0) lines.push(`… and ${more} more problem${more === 1 ? '' : 's'}`);
  return lines;
}

/** Names go into NM103: X12 delimiters and control characters become spaces, then 60 characters at most. */
function cleanName(raw: string): string {
  return raw
    .replace(/[*~^:\p{Cc}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, NAME_MAX)
    .trim();
}

function text(value: RawRecord['cells'][ImportField]): string {
  const v = value?.value;
  return typeof v === 'string' ? v.trim() : '';
}

function toEntry(
  record: RawRecord,
  connection: string | string[],
  problems: Problems,
): ImportedPayer | undefined {
  const { row, cells } = record;
  const add = (field: ImportField, message: string) =>
    problems.add(row, cells[field]?.column ?? field, message);
  const id = text(cells.id);
  if (!id) add('id', 'the payer id is empty');
  else if (!PAYER_KEY.test(id))
    add(
      'id',
      `${shown(id)} is not a payer id: 1–50 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  const name = cleanName(text(cells.name));
  if (!name) add('name', 'the payer name is empty');
  const payerId = text(cells.payerId) || id;
  if (cells.payerId && payerId && !PAYER_ID.test(payerId))
    add(
      'payerId',
      `${shown(payerId)} cannot be an X12 payer id (NM109): letters, digits, spaces and . & / ( ) # -`,
    );
  const rawAliases = cells.aliases?.value;
  const aliases = readList(typeof rawAliases === 'boolean' ? undefined : rawAliases).filter((a) => a !== id);
  const badAliases = aliases.filter((a) => !PAYER_KEY.test(a));
  if (badAliases.length)
    add('aliases', `${listed(badAliases)} not a payer id (letters, digits, ".", "_", "-")`);
  if (aliases.length > MAX_ALIASES) add('aliases', `${aliases.length} aliases, at most ${MAX_ALIASES}`);
  const eligibility = readEligibility(flag(cells.eligibility?.value));
  if ('problem' in eligibility) add('eligibility', eligibility.problem);
  const enrollment = readEnrollment(flag(cells.enrollment?.value));
  if ('problem' in enrollment) add('enrollment', enrollment.problem);
  const rawStates = cells.states?.value;
  const states = readStates(typeof rawStates === 'boolean' ? undefined : rawStates);
  if ('problem' in states) add('states', states.problem);
  if (!id || !name || 'problem' in eligibility || 'problem' in enrollment || 'problem' in states)
    return undefined;
  const entry: ImportedPayer = { id, name, payerId, connection };
  if (aliases.length) entry.aliases = aliases;
  if (eligibility.value.eligibility !== undefined) entry.eligibility = eligibility.value.eligibility;
  const enrolment = enrollment.value ?? eligibility.value.enrollment;
  if (enrolment) entry.enrollment = enrolment;
  if (states.value) entry.states = states.value;
  return entry;
}

/** `"A" is` / `"A", "B" are` / `"A", "B", "C" and 2 more are`. */
function listed(values: string[]): string {
  const head = values.slice(0, 3).map(shown).join(', ');
  const more = values.length > 3 ? ` and ${values.length - 3} more` : '';
  return `${head}${more} ${values.length === 1 ? 'is' : 'are'}`;
}

function flag(v: string | string[] | boolean | undefined): string | boolean | undefined {
  return Array.isArray(v) ? v.join(' ') : v;
}

/** An id or alias already held by an earlier row is a problem of this row. */
function claimKeys(
  entry: ImportedPayer,
  record: RawRecord,
  taken: Map<string, { row: number; as: 'id' | 'alias' }>,
  problems: Problems,
  unit: 'line' | 'item',
): void {
  for (const key of [entry.id, ...(entry.aliases ?? [])]) {
    const holder = taken.get(key);
    if (!holder) continue;
    const field: ImportField = key === entry.id ? 'id' : 'aliases';
    const column = record.cells[field]?.column ?? field;
    problems.add(
      record.row,
      column,
      `${shown(key)} is already the ${holder.as} of the payer on ${unit} ${holder.row}`,
    );
  }
}
