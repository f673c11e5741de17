/**
 * The batch CSV files (issue 17 section 1), for the CLI and the portal: a schedule in (one check per row,
 * columns of examples/batch.example.csv) and results out (one row per check: verdict, plan, and for each
 * of the seven service types its copay, coinsurance, deductible remaining, out-of-pocket remaining,
 * visits remaining and whether authorization is required). Pure: text in, data out. docs/batches.md
 * documents the columns.
 */
import {
  type BenefitEntry,
  type EligibilityCheckResponse,
  PRODUCT_SERVICE_TYPES,
} from '../contract/check-response.ts';

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

export interface ParsedSchedule {
  /** Submit bodies, one per well-formed row. */
  checks: unknown[];
  /** The file line of each body in `checks` (1 is the header). */
  lines: number[];
  /** Rows that could not become a body, by file line. */
  problems: { line: number; message: string }[];
}

/** RFC 4180 fields: commas, double quotes around fields, `""` inside them; CRLF or LF line ends. */
export function parseCsvRows(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '') rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
  };
  const src = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else field += ch;
  }
  if (field !== '' || fields.length) endRow();
  return rows;
}

/** A schedule CSV as submit bodies; a row that cannot become one is reported with its line and reason. */
export function parseScheduleCsv(text: string): ParsedSchedule {
  const rows = parseCsvRows(text);
  const header = rows.shift();
  const out: ParsedSchedule = { checks: [], lines: [], problems: [] };
  if (!header) {
    out.problems.push({ line: 1, message: 'the file is empty: the first line must name the columns' });
    return out;
  }
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const missing = REQUIRED.filter((c) => !names.includes(c));
  const unknown = names.filter((n) => !(SCHEDULE_COLUMNS as readonly string[]).includes(n));
  if (missing.length || unknown.length) {
    const why = [
      missing.length ? `missing column ${missing.join(', ')}` : '',
      unknown.length ? `unknown column ${unknown.join(', ')}` : '',
    ].filter(Boolean);
    out.problems.push({ line: header.line, message: `${why.join('; ')} (see examples/batch.example.csv)` });
    return out;
  }
  for (const row of rows) {
    if (row.fields.length !== names.length) {
      out.problems.push({
        line: row.line,
        message: `${row.fields.length} fields where the header names ${names.length}`,
      });
      continue;
    }
    const v = Object.fromEntries(names.map((n, i) => [n, row.fields[i]!.trim()]));
    const empty = REQUIRED.filter((c) => !v[c]);
    if (empty.length) {
      out.problems.push({ line: row.line, message: `empty ${empty.join(', ')}` });
      continue;
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
    out.lines.push(row.line);
  }
  return out;
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
