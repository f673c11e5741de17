/**
 * The batch CSV files (issue 17 section 1), for the CLI and the portal: a schedule in (one check per row,
 * columns of examples/batch.example.csv) and results out (one row per check: verdict, plan, and for each
 * of the seven service types its copay, coinsurance, deductible remaining, out-of-pocket remaining,
 * visits remaining and whether authorization is required). Pure: text in, data out. docs/batches.md
 * documents the columns.
 */
import { setImmediate } from 'node:timers/promises';
import { MAX_BATCH_CHECKS } from '../contract/batch.ts';
import {
  type BenefitEntry,
  type EligibilityCheckResponse,
  PRODUCT_SERVICE_TYPES,
} from '../contract/check-response.ts';
import { CsvRecordReader, isBlankRecord } from './csv-rows.ts';

/** The schedule's columns, in order (the header row must name them). */
export const SCHEDULE_COLUMNS = [
  'payer',
  'member_id',
  'first_name',
  'last_name',
  'date_of_birth',
  'provider_npi',
  'provider_name',
  'service_types',
  'date_of_service',
] as const;
const REQUIRED = ['payer', 'member_id', 'first_name', 'last_name', 'date_of_birth', 'provider_npi'] as const;

/** A schedule row longer than this is refused by line, unread: a real row is a few hundred characters. */
export const MAX_SCHEDULE_ROW_CHARS = 1_000;
/** Problems kept with their line and reason; beyond, only counted ("and N more"). */
export const MAX_SCHEDULE_PROBLEMS = 500;
/** Rows (or, for empty lines, characters) read between two yields to the event loop. */
const ROWS_PER_STEP = 250;
const CHARS_PER_STEP = 256 * 1024;
/** Unknown header names quoted in the header's problem, each cut to this length. */
const NAMES_SHOWN = 5;
const NAME_SHOWN_CHARS = 40;

export interface ParsedSchedule {
  /** Submit bodies, one per well-formed row. */
  checks: unknown[];
  /** The file line of each body in `checks` (1 is the header). */
  lines: number[];
  /** Where the header's and each body's row lie in the text (for `scheduleRows`). */
  spans: { header?: Span; rows: Span[] };
  /** Rows that could not become a body, by file line: the first MAX_SCHEDULE_PROBLEMS. */
  problems: { line: number; message: string }[];
  /** Every problem, including those not kept in `problems`. */
  problemCount: number;
  /** The file has more than MAX_BATCH_CHECKS rows after the header: reading stopped there. */
  tooManyRows: boolean;
}

type Span = { start: number; end: number };

export { parseCsvRows } from './csv-rows.ts';

/**
 * The header and the rows of `text` that became bodies, as a schedule again (each row's text as it was,
 * one per line): what the portal's review sends back, without the rows it could not read.
 */
export function scheduleRows(text: string, parsed: ParsedSchedule): string {
  const { header, rows } = parsed.spans;
  if (!header) return '';
  const lines = [text.slice(header.start, header.end)];
  for (const span of rows) lines.push(text.slice(span.start, span.end));
  return `${lines.join('\r\n')}\r\n`;
}

/** A schedule CSV as submit bodies, all at once (the CLI, with a file of its user's own machine). */
export function parseScheduleCsv(text: string): ParsedSchedule {
  const out = emptySchedule();
  for (const _ of scheduleSteps(text, out));
  return out;
}

/**
 * The same, for a server: the event loop gets a turn every ROWS_PER_STEP rows (or CHARS_PER_STEP
 * characters of empty lines), and reading stops at the row limit.
 */
export async function readScheduleCsv(text: string): Promise<ParsedSchedule> {
  const out = emptySchedule();
  for (const _ of scheduleSteps(text, out)) await setImmediate();
  return out;
}

const emptySchedule = (): ParsedSchedule => ({
  checks: [],
  lines: [],
  spans: { rows: [] },
  problems: [],
  problemCount: 0,
  tooManyRows: false,
});

function addProblem(out: ParsedSchedule, line: number, message: string): void {
  out.problemCount++;
  if (out.problems.length < MAX_SCHEDULE_PROBLEMS) out.problems.push({ line, message });
}

const tooLong = (line: number) =>
  `line ${line} is longer than ${MAX_SCHEDULE_ROW_CHARS.toLocaleString('en-US')} characters and was not read`;

/** Reads `text` into `out`, yielding (nothing) between steps; a row that cannot become a body is a problem. */
function* scheduleSteps(text: string, out: ParsedSchedule): Generator<void> {
  const reader = new CsvRecordReader(text, MAX_SCHEDULE_ROW_CHARS);
  let names: string[] | undefined;
  let rows = 0;
  let sinceStep = 0;
  let stepEnd = CHARS_PER_STEP;
  while (!reader.done) {
    const record = reader.next();
    if (++sinceStep >= ROWS_PER_STEP || reader.position >= stepEnd) {
      sinceStep = 0;
      stepEnd = reader.position + CHARS_PER_STEP;
      yield;
    }
    if (isBlankRecord(record)) continue;
    if (!names) {
      if (!record.fields) {
        addProblem(out, record.line, `${tooLong(record.line)}: the first line must name the columns`);
        return;
      }
      names = record.fields.map((f) => f.trim().toLowerCase());
      const problem = headerProblem(names);
      if (problem) {
        addProblem(out, record.line, problem);
        return;
      }
      out.spans.header = { start: record.start, end: record.end };
      continue;
    }
    if (++rows > MAX_BATCH_CHECKS) {
      out.tooManyRows = true;
      return;
    }
    if (!record.fields) addProblem(out, record.line, tooLong(record.line));
    else if (readRow(out, names, record.line, record.fields)) {
      out.spans.rows.push({ start: record.start, end: record.end });
    }
  }
  if (!names) addProblem(out, 1, 'the file is empty: the first line must name the columns');
}

/** What is wrong with the header's column names, briefly; undefined when they are the schedule's. */
function headerProblem(names: string[]): string | undefined {
  const missing = REQUIRED.filter((c) => !names.includes(c));
  const unknown = [...new Set(names.filter((n) => !(SCHEDULE_COLUMNS as readonly string[]).includes(n)))];
  if (!missing.length && !unknown.length) return undefined;
  const shown = unknown
    .slice(0, NAMES_SHOWN)
    .map((n) =>
      n === '' ? '(empty)' : n.length > NAME_SHOWN_CHARS ? `${n.slice(0, NAME_SHOWN_CHARS)}…` : n,
    );
  const more = unknown.length > NAMES_SHOWN ? ` and ${unknown.length - NAMES_SHOWN} more` : '';
  const why = [
    missing.length ? `missing column ${missing.join(', ')}` : '',
    unknown.length ? `unknown column ${shown.join(', ')}${more}` : '',
  ].filter(Boolean);
  return `${why.join('; ')} (see examples/batch.example.csv)`;
}

/** One data row: a submit body (true), or a problem naming its line. */
function readRow(out: ParsedSchedule, names: string[], line: number, fields: string[]): boolean {
  if (fields.length !== names.length) {
    addProblem(out, line, `${fields.length} fields where the header names ${names.length}`);
    return false;
  }
  const v = Object.fromEntries(names.map((n, i) => [n, fields[i]!.trim()]));
  const empty = REQUIRED.filter((c) => !v[c]);
  if (empty.length) {
    addProblem(out, line, `empty ${empty.join(', ')}`);
    return false;
  }
  const stc = v.service_types ? v.service_types.split(/[;\s]+/).filter(Boolean) : [];
  out.checks.push({
    tradingPartnerServiceId: v.payer,
    provider: { organizationName: v.provider_name || 'Clinic', npi: v.provider_npi },
    subscriber: {
      memberId: v.member_id,
      firstName: v.first_name,
      lastName: v.last_name,
      dateOfBirth: v.date_of_birth,
    },
    ...(stc.length || v.date_of_service
      ? {
          encounter: {
            ...(stc.length ? { serviceTypeCodes: stc } : {}),
            ...(v.date_of_service ? { dateOfService: v.date_of_service } : {}),
          },
        }
      : {}),
  });
  out.lines.push(line);
  return true;
}

/** Per service type, in this order: the result columns' suffixes. */
const BENEFIT_COLUMNS = [
  'copay',
  'coinsurance',
  'deductible_remaining',
  'oop_remaining',
  'visits_remaining',
  'authorization_required',
] as const;

const slug = (serviceType: string) => serviceType.toLowerCase().replaceAll(' ', '_');

/** The results CSV's header: the check, its verdict and plan, then six columns per service type. */
export const RESULT_COLUMNS: readonly string[] = [
  'index',
  'check_id',
  'status',
  'verdict',
  'verdict_summary',
  'plan',
  'network',
  ...PRODUCT_SERVICE_TYPES.flatMap((t) => BENEFIT_COLUMNS.map((c) => `${slug(t)}_${c}`)),
];

export interface ResultRow {
  index: number;
  id: string;
  /** The status body (null while the check is in progress). */
  body: EligibilityCheckResponse | null;
}

/** The entry to show for a service type: in network when the payer said, else the first. */
function entryFor(body: EligibilityCheckResponse, serviceType: string): BenefitEntry | undefined {
  const entries = (body.benefits ?? []).filter((b) => b.serviceType === serviceType);
  return entries.find((e) => e.inNetwork === true) ?? entries[0];
}

function benefitCells(entry: BenefitEntry | undefined): unknown[] {
  if (!entry) return BENEFIT_COLUMNS.map(() => '');
  const visits =
    entry.visitLimit === null || entry.visitLimit === undefined
      ? null
      : entry.visitLimit - (entry.visitsUsed ?? 0);
  return [
    entry.copay,
    entry.coinsurance,
    entry.deductibleRemaining,
    entry.outOfPocketRemaining,
    visits,
    entry.authorizationRequired,
  ];
}

/** One row per check, in request order: what `elig batch results --csv` prints and the portal downloads. */
export function resultsCsv(rows: ResultRow[]): string {
  return resultsCsvHeader() + resultsCsvLines(rows);
}

/** The header line (CRLF-terminated), for a writer that sends the rows page by page. */
export function resultsCsvHeader(): string {
  return `${RESULT_COLUMNS.join(',')}\r\n`;
}

/** Rows only, each CRLF-terminated: a page of a large batch, written after `resultsCsvHeader()`. */
export function resultsCsvLines(rows: ResultRow[]): string {
  let out = '';
  for (const r of rows) {
    const b = r.body;
    out += `${[
      r.index,
      r.id,
      b?.status ?? 'IN_PROGRESS',
      b?.verdict?.status,
      b?.verdict?.summary,
      b?.planInformation?.planName ?? b?.planCoverage,
      b?.providerNetwork?.status,
      ...PRODUCT_SERVICE_TYPES.flatMap((t) => benefitCells(b ? entryFor(b, t) : undefined)),
    ]
      .map(csvField)
      .join(',')}\r\n`;
  }
  return out;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // A leading = + - @ TAB or CR would make a spreadsheet run the cell as a formula; only a whole plain
  // number is exempt (`-1+cmd|...` starts like a number and is a formula).
  const safe = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
