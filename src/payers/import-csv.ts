/**
 * The CSV reader of payer list import: RFC 4180 fields (double quotes around a field, `""` inside one,
 * commas and line breaks inside quotes), CRLF or LF line ends, a leading byte-order mark ignored. A list
 * exported with tabs or semicolons instead of commas is read too: the separator is the one of the three
 * found most often in the header line. The header row then names the column of each field. Pure: text in,
 * records out.
 */
import {
  COLUMN_SYNONYMS,
  fieldOfHeader,
  headerKey,
  IMPORT_FIELDS,
  type ImportField,
  ProblemList,
  type RawRecord,
  type RecordList,
  type RowFilter,
  shown,
} from './import-values.ts';

export interface CsvRow {
  /** File line the row starts on (1 is the first line). */
  line: number;
  fields: string[];
}

export interface CsvTable {
  separator: ',' | ';' | '\t';
  rows: CsvRow[];
  /** Line of a quote that is never closed: the rest of the file was read as one field. */
  unclosedQuoteLine?: number;
}

function headerSeparator(text: string): CsvTable['separator'] {
  const end = text.search(/\r?\n/);
  const header = end < 0 ? text : text.slice(0, end);
  const count = (c: string) => header.split(c).length - 1;
  const tabs = count('\t');
  const semicolons = count(';');
  const commas = count(',');
  if (tabs > commas && tabs >= semicolons) return '\t';
  if (semicolons > commas) return ';';
  return ',';
}

/** Lines begun inside text[from, to): the line breaks a quoted field holds. */
function lineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Where the unquoted part of a field ends: at the separator, a line end, or the end of the text. */
function fieldEnd(text: string, from: number, separator: string): number {
  let at = from;
  while (at < text.length) {
    const ch = text[at];
    if (ch === separator || ch === '\n' || ch === '\r') break;
    at++;
  }
  return at;
}

/**
 * Fields are slices of the text (a quoted field joins its pieces between doubled quotes), so 10 000 rows
 * make no per-character garbage. A quote opens a quoted field when only spaces come before it.
 */
export function readCsv(input: string): CsvTable {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const separator = headerSeparator(text);
  const table: CsvTable = { separator, rows: [] };
  const n = text.length;
  let fields: string[] = [];
  let line = 1;
  let rowLine = 1;
  let i = 0;
  for (;;) {
    let open = i;
    while (open < n && text[open] === ' ') open++;
    let value: string;
    if (text[open] === '"') {
      let pieces = '';
      let from = open + 1;
      let close = text.indexOf('"', from);
      const quoteLine = line;
      while (close >= 0 && text[close + 1] === '"') {
        pieces += text.slice(from, close + 1);
        from = close + 2;
        close = text.indexOf('"', from);
      }
      if (close < 0) {
        table.unclosedQuoteLine = quoteLine;
        close = n;
      }
      line += lineBreaks(text, open, close);
      const end = fieldEnd(text, Math.min(close + 1, n), separator);
      value = pieces + text.slice(from, close) + text.slice(Math.min(close + 1, n), end);
      i = end;
    } else {
      const end = fieldEnd(text, i, separator);
      value = text.slice(i, end);
      i = end;
    }
    fields.push(value);
    if (i < n && text[i] === separator) {
      i++;
      continue;
    }
    // A blank line is no row.
    if (fields.length > 1 || fields[0]!.trim() !== '') table.rows.push({ line: rowLine, fields });
    fields = [];
    if (i >= n) break;
    i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
    line++;
    rowLine = line;
  }
  return table;
}

/** The header row picks a column per field: the mapping's header, else the first synonym found. */
export function csvRecords(
  text: string,
  mapping: Partial<Record<ImportField, string>>,
  only: RowFilter | undefined,
): RecordList {
  const problems = new ProblemList();
  const table = readCsv(text);
  const [header, ...rows] = table.rows;
  if (table.unclosedQuoteLine) problems.add(table.unclosedQuoteLine, undefined, 'a quote is never closed');
  if (!header) {
    problems.add(0, undefined, 'it is empty: a header row and one row per payer are expected');
    return { records: [], ignoredColumns: [], problems: problems.list };
  }
  const names = header.fields.map((h) => h.trim());
  const index: Partial<Record<ImportField, number>> = {};
  for (const field of IMPORT_FIELDS) {
    const wanted = mapping[field];
    if (wanted !== undefined) {
      const at = columnIndex(names, wanted);
      if (at === undefined)
        problems.add(header.line, wanted, `the header has no column ${shown(wanted)} (for ${field})`);
      else index[field] = at;
    } else {
      const at = names.findIndex((n, i) => fieldOfHeader(n) === field && !Object.values(index).includes(i));
      if (at >= 0) index[field] = at;
    }
  }
  for (const field of ['id', 'name'] as const) {
    if (index[field] === undefined && mapping[field] === undefined) {
      const known = COLUMN_SYNONYMS[field].slice(0, 4).join(', ');
      problems.add(
        header.line,
        undefined,
        `no ${field} column: name one ${known}…, or map it with --columns ${field}=<header>`,
      );
    }
  }
  const onlyAt = only ? columnIndex(names, only.column) : undefined;
  if (only && onlyAt === undefined)
    problems.add(header.line, only.column, `the header has no column ${shown(only.column)} (for --only)`);
  const used = new Set([...Object.values(index), onlyAt]);
  const ignoredColumns = names.filter((n, i) => !used.has(i) && n !== '');
  const out = { records: [], ignoredColumns, problems: problems.list };
  if (index.id === undefined || index.name === undefined || (only && onlyAt === undefined)) return out;
  const records = rows.map((row): RawRecord => {
    const cells: RawRecord['cells'] = {};
    for (const field of IMPORT_FIELDS) {
      const at = index[field];
      if (at !== undefined) cells[field] = { column: names[at]!, value: row.fields[at]?.trim() ?? '' };
    }
    const excluded = only && onlyAt !== undefined && !only.accepts(row.fields[onlyAt] ?? '');
    return excluded ? { row: row.line, cells, excluded: true } : { row: row.line, cells };
  });
  return { ...out, records };
}

/** The column of this header: written exactly, else compared as header keys. */
function columnIndex(names: string[], wanted: string): number | undefined {
  let at = names.indexOf(wanted);
  if (at < 0) at = names.findIndex((n) => headerKey(n) === headerKey(wanted));
  return at < 0 ? undefined : at;
}
