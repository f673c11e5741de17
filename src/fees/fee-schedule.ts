/**
 * An organization's fee schedule, from a CSV an owner uploads in the portal or an operator sends through
 * the admin endpoint (`elig fees import`): `procedure_code`, optional `payer_id`, `allowed_amount` in
 * dollars. Every row is checked before anything is written; a file with any bad row is refused whole, each
 * problem named by its line, and a good file replaces the schedule in one transaction (never half-applied).
 * Rows are read one record at a time with the batch reader's limits (src/batches/csv-rows.ts).
 */
import { setImmediate } from 'node:timers/promises';
import { CsvRecordReader, isBlankRecord } from '../batches/csv-rows.ts';
import { MAX_CHARGE_AMOUNT } from '../contract/estimate.ts';
import type { Db } from '../store/db.ts';
import { type FeeRow, replaceFees } from '../store/fee-schedule.ts';

export const FEE_COLUMNS = ['procedure_code', 'payer_id', 'allowed_amount'] as const;
const REQUIRED = ['procedure_code', 'allowed_amount'];
/** The most rows one schedule holds. */
export const MAX_FEE_ROWS = 10_000;
const MAX_ROW_CHARS = 1_000;
/** Problems listed (the count says how many more). */
export const MAX_FEE_PROBLEMS = 200;
const ROWS_PER_STEP = 500;

const PROCEDURE_CODE = /^[A-Z0-9]{1,10}$/;
const PAYER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$/;
const AMOUNT = /^\$?([0-9]{1,7})(\.[0-9]{1,2})?$/;
/** What a spreadsheet would run as a formula: refused, never stored. */
const FORMULA_START = /^[=+\-@\t\r]/;

export type FeeEntry = Pick<FeeRow, 'procedureCode' | 'payerId' | 'amountCents'>;

export interface ReadFeeSchedule {
  rows: FeeEntry[];
  problems: { line: number; message: string }[];
  /** Every problem, listed or not. */
  problemCount: number;
}

/** The rows of `text`, or every problem with it by line; yields to the event loop every so many rows. */
export async function readFeeScheduleCsv(text: string): Promise<ReadFeeSchedule> {
  const out: ReadFeeSchedule = { rows: [], problems: [], problemCount: 0 };
  const problem = (line: number, message: string) => {
    out.problemCount++;
    if (out.problems.length < MAX_FEE_PROBLEMS) out.problems.push({ line, message });
  };
  const reader = new CsvRecordReader(text, MAX_ROW_CHARS);
  const seen = new Map<string, number>();
  let names: string[] | undefined;
  let records = 0;
  while (!reader.done) {
    const record = reader.next();
    if (++records % ROWS_PER_STEP === 0) await setImmediate();
    if (isBlankRecord(record)) continue;
    if (!record.fields) {
      problem(record.line, `longer than ${MAX_ROW_CHARS} characters`);
      if (!names) return out;
      continue;
    }
    if (!names) {
      names = record.fields.map((f) => f.trim().toLowerCase());
      const header = headerProblem(names);
      if (header) {
        problem(record.line, header);
        return out;
      }
      continue;
    }
    if (out.rows.length + out.problemCount >= MAX_FEE_ROWS) {
      problem(record.line, `more than ${MAX_FEE_ROWS.toLocaleString('en-US')} rows: split the schedule`);
      return out;
    }
    const row = readRow(names, record.fields);
    if (typeof row === 'string') {
      problem(record.line, row);
      continue;
    }
    const key = `${row.procedureCode} ${row.payerId}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problem(
        record.line,
        `repeats procedure code ${row.procedureCode}${row.payerId ? ` for payer ${row.payerId}` : ''} of line ${first}`,
      );
      continue;
    }
    seen.set(key, record.line);
    out.rows.push(row);
  }
  if (!names)
    problem(1, `the file is empty: the first line must name the columns (${FEE_COLUMNS.join(', ')})`);
  return out;
}

function headerProblem(names: string[]): string | undefined {
  const missing = REQUIRED.filter((c) => !names.includes(c));
  const unknown = names.filter((n) => !(FEE_COLUMNS as readonly string[]).includes(n));
  if (!missing.length && !unknown.length && new Set(names).size === names.length) return undefined;
  const shown = unknown.slice(0, 5).map((n) => (n === '' ? '(empty)' : n.slice(0, 40)));
  return [
    missing.length ? `missing column ${missing.join(', ')}` : '',
    unknown.length ? `unknown column ${shown.join(', ')}` : '',
    new Set(names).size !== names.length ? 'a column named twice' : '',
  ]
    .filter(Boolean)
    .join('; ')
    .concat(` (the columns are ${FEE_COLUMNS.join(', ')}; payer_id may be left out)`);
}

/** One data row, or what is wrong with it (no cell is repeated back but the code and payer id). */
function readRow(names: string[], fields: string[]): FeeEntry | string {
  if (fields.length !== names.length) return `${fields.length} fields where the header names ${names.length}`;
  const v = Object.fromEntries(names.map((n, i) => [n, fields[i]!.trim()]));
  const code = (v.procedure_code ?? '').toUpperCase();
  const payer = v.payer_id ?? '';
  const amount = v.allowed_amount ?? '';
  if ([code, payer, amount].some((cell) => FORMULA_START.test(cell)))
    return 'a cell starts like a spreadsheet formula (= + - @): write the value itself';
  if (!PROCEDURE_CODE.test(code)) return 'procedure_code must be 1 to 10 letters or digits, e.g. 97110';
  if (payer && !PAYER_ID.test(payer))
    return 'payer_id must be a payer id of the directory (letters, digits, . _ -), or empty for every payer';
  const m = AMOUNT.exec(amount);
  if (!m) return 'allowed_amount must be dollars with at most two decimals, e.g. 120.50';
  const cents = Number(m[1]) * 100 + Math.round(Number(m[2] ?? '0') * 100);
  if (cents > MAX_CHARGE_AMOUNT * 100)
    return `allowed_amount must be at most ${MAX_CHARGE_AMOUNT.toLocaleString('en-US')}`;
  return { procedureCode: code, payerId: payer, amountCents: cents };
}

export type FeeImport =
  | { ok: true; rows: number }
  | { ok: false; problems: ReadFeeSchedule['problems']; problemCount: number };

/** Reads `text` and, when every row is good, replaces the organization's schedule with it. */
export async function importFeeSchedule(db: Db, organizationId: string, text: string): Promise<FeeImport> {
  const read = await readFeeScheduleCsv(text);
  if (read.problemCount > 0) return { ok: false, problems: read.problems, problemCount: read.problemCount };
  await replaceFees(db, organizationId, read.rows);
  return { ok: true, rows: read.rows.length };
}
