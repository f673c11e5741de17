/**
 * `elig batch submit FILE.csv|FILE.json [--wait]` and `elig batch results ID [--csv]`: batches through the
 * HTTP API, like any client. Progress goes to stderr (a live bar on a terminal: done/total, by verdict,
 * rate, time left), results to stdout. The CSV columns are those of src/batches/csv.ts
 * (docs/batches.md, examples/batch.example.csv).
 */
import { readFileSync } from 'node:fs';
import { parseScheduleCsv, type ResultRow, resultsCsv } from '../../batches/csv.ts';
import type { Config } from '../../config.ts';
import { type BatchAccepted, type BatchSummary, MAX_BATCH_CHECKS } from '../../contract/batch.ts';
import type { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { API_OPTIONS, type ApiArgs, apiCaller, sleep } from '../api-target.ts';
import { CliError, type CommandSpec, type Io } from '../args.ts';

export const BATCH_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'batch submit',
    summary: 'submit a CSV schedule or a JSON list of checks as one batch; with --wait, show its progress',
    positionals: [
      { name: 'FILE', description: 'a .csv with the columns of examples/batch.example.csv, or a .json' },
    ],
    options: {
      name: { type: 'string', value: 'NAME', description: 'a label for the batch' },
      atomic: { type: 'boolean', description: 'refuse the whole batch if any row is invalid' },
      wait: { type: 'boolean', description: 'show progress until the batch completes' },
      timeout: {
        type: 'string',
        value: 'SECONDS',
        description: 'with --wait: give up after this long; default 86400',
      },
      ...API_OPTIONS,
    },
    run: ({ config, values, positionals, io }) =>
      submitCommand(config(), positionals[0]!, values as ApiArgs & SubmitArgs, io),
  },
  {
    name: 'batch results',
    summary: "print a batch's results: the summary as JSON, or with --csv one row per check",
    positionals: [{ name: 'ID', description: 'the batch id' }],
    options: {
      csv: { type: 'boolean', description: 'one CSV row per check (columns in docs/batches.md)' },
      ...API_OPTIONS,
    },
    run: ({ config, values, positionals, io }) =>
      resultsCommand(config(), positionals[0]!, values as ApiArgs & { csv?: boolean }, io),
  },
];

interface SubmitArgs {
  name?: string;
  atomic?: boolean;
  wait?: boolean;
  timeout?: string;
}

/** The file's checks, and for a CSV the file line of each (to report problems by line). */
function readChecks(file: string): {
  checks: unknown[];
  lines?: number[];
  problems: string[];
  problemCount: number;
} {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(
      `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (/\.json$/i.test(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`${file} is not valid JSON.`);
    }
    const checks = Array.isArray(parsed) ? parsed : (parsed as { checks?: unknown })?.checks;
    if (!Array.isArray(checks))
      throw new CliError(`${file} must hold a list of checks, or {"checks": [...]}.`);
    return { checks, problems: [], problemCount: 0 };
  }
  const schedule = parseScheduleCsv(text);
  if (schedule.tooManyRows) {
    throw new CliError(`${file} has more than ${MAX_BATCH_CHECKS} rows, the most a batch takes: split it.`);
  }
  const more = schedule.problemCount - schedule.problems.length;
  return {
    checks: schedule.checks,
    lines: schedule.lines,
    problems: [
      ...schedule.problems.map((p) => `line ${p.line}: ${p.message}`),
      ...(more ? [`and ${more} more malformed rows`] : []),
    ],
    problemCount: schedule.problemCount,
  };
}

async function submitCommand(
  config: Config,
  file: string,
  args: SubmitArgs & ApiArgs,
  io: Io,
): Promise<number> {
  const call = apiCaller(config, args);
  const { checks, lines, problems, problemCount } = readChecks(file);
  for (const p of problems) io.stderr.write(`${file} ${p}\n`);
  if (checks.length === 0) throw new CliError(`${file} has no check to submit.`);
  if (problemCount && args.atomic)
    throw new CliError(`${problemCount} malformed rows; nothing was submitted (--atomic).`);
  const accepted = (await call('/api/eligibility/batch', {
    method: 'POST',
    body: JSON.stringify({
      checks,
      ...(args.name ? { name: args.name } : {}),
      ...(args.atomic ? { atomic: true } : {}),
    }),
  })) as BatchAccepted;
  for (const p of accepted.problems) {
    const where = lines ? `line ${lines[p.index]}` : `checks[${p.index}]`;
    io.stderr.write(`${file} ${where}: ${p.message}\n`);
  }
  io.stderr.write(
    `Batch ${accepted.id}: ${accepted.counts.total} checks accepted, ${accepted.counts.rejected + problemCount} refused\n`,
  );
  if (!args.wait) {
    io.stdout.write(
      `${JSON.stringify({ id: accepted.id, status: accepted.status, counts: accepted.counts }, null, 2)}\n`,
    );
    return 0;
  }
  const started = Date.now();
  const limitMs = Number(args.timeout ?? 86_400) * 1000;
  for (let polls = 0; ; polls++) {
    const batch = (await call(`/api/eligibility/batch/${accepted.id}?limit=1`)) as BatchSummary;
    const line = progressLine(batch, (Date.now() - started) / 1000);
    if (batch.status === 'COMPLETED') {
      if (io.stderr.isTTY) io.stderr.write('\r\x1b[K');
      io.stderr.write(`${line}\n`);
      printSummary(io, batch);
      return 0;
    }
    if (Date.now() - started > limitMs)
      throw new CliError(
        `Batch ${accepted.id} still IN_PROGRESS; follow it with \`elig batch results ${accepted.id}\`.`,
      );
    if (io.stderr.isTTY) io.stderr.write(`\r\x1b[K${line}`);
    else if (polls % 10 === 0) io.stderr.write(`${line}\n`);
    await sleep(Math.min(2000, 250 + polls * 100));
  }
}

/** The batch's counts and progress as JSON, without a page of its items. */
function printSummary(io: Io, batch: BatchSummary | undefined): void {
  const {
    items: _items,
    next: _next,
    ...summary
  } = (batch ?? {}) as BatchSummary & {
    items?: unknown;
    next?: unknown;
  };
  io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
}

/** `[#####-----] 412/1000  ACTIVE 380 INACTIVE 20 UNDETERMINED 2 FAILED 10  35.2/s  17s left` */
export function progressLine(batch: BatchSummary, elapsedSeconds: number): string {
  const total = batch.counts.total;
  const done = total - batch.counts.IN_PROGRESS;
  const width = 20;
  const filled = total ? Math.round((done / total) * width) : width;
  const rate = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  const left = rate > 0 ? Math.ceil((total - done) / rate) : undefined;
  const verdicts = Object.entries(batch.verdicts)
    .map(([v, n]) => `${v} ${n}`)
    .join(' ');
  const eta = batch.status === 'COMPLETED' ? 'done' : left === undefined ? '' : `${left}s left`;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}  ${verdicts}  ${rate.toFixed(1)}/s  ${eta}`.trimEnd();
}

async function resultsCommand(
  config: Config,
  id: string,
  args: ApiArgs & { csv?: boolean },
  io: Io,
): Promise<number> {
  const call = apiCaller(config, args);
  const rows: ResultRow[] = [];
  let summary: BatchSummary | undefined;
  let after: string | null = '-1';
  while (after !== null) {
    const page = (await call(
      `/api/eligibility/batch/${encodeURIComponent(id)}?limit=1000&after=${after}`,
    )) as BatchSummary & {
      items: { id: string; index: number; status: string }[];
      next: string | null;
    };
    summary ??= page;
    if (!args.csv) break;
    const bodies = await mapLimited(page.items, 8, async (item) =>
      item.status === 'IN_PROGRESS'
        ? null
        : ((await call(`/api/eligibility/${item.id}/status`)) as EligibilityCheckResponse),
    );
    rows.push(...page.items.map((item, i) => ({ index: item.index, id: item.id, body: bodies[i]! })));
    after = page.next;
  }
  if (!args.csv) {
    printSummary(io, summary);
    return 0;
  }
  io.stdout.write(resultsCsv(rows));
  return summary?.status === 'COMPLETED' ? 0 : 2;
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
