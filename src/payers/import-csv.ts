/**
 * The CSV reader of payer list import: RFC 4180 fields (double quotes around a field, `""` inside one,
 * commas and line breaks inside quotes), CRLF or LF line ends, a leading byte-order mark ignored. A list
 * exported with tabs or semicolons instead of commas is read too: the separator is the one of the three
 * found most often in the header line. Pure: text in, rows out.
 */

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

export function readCsv(input: string): CsvTable {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const separator = headerSeparator(text);
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let quoteLine = 0;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    fields.push(field);
    // A blank line is no row.
    if (fields.length > 1 || fields[0]!.trim() !== '') rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
  };
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        field += text.slice(start, i);
        if (text[i + 1] === '"') {
          field += '"';
          i++;
          start = i + 1;
        } else {
          quoted = false;
        }
      } else if (ch === '\n') line++;
      continue;
    }
    if (ch === '"' && field.trim() === '') {
      field = '';
      quoted = true;
      quoteLine = line;
      start = i + 1;
    } else if (ch === separator) {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else field += ch;
  }
  if (quoted) {
    field += text.slice(start);
    endRow();
    return { separator, rows, unclosedQuoteLine: quoteLine };
  }
  if (field !== '' || fields.length) endRow();
  return { separator, rows };
}
