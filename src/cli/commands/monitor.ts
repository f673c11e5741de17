/**
 * `elig monitor list|show|create|pause|resume|delete`: monitors (recurring checks, docs/monitors.md) through
 * the HTTP API, like any client and like `elig batch`: the same --url/--key, errors as the API words them.
 * `list` prints a table without patient names or dates of birth (member ids cut to their last four, as the
 * portal's list does); `--json` and the other commands print the API's JSON.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../config.ts';
import type { Monitor, MonitorPage } from '../../contract/monitor.ts';
import { API_OPTIONS, type ApiArgs, apiCaller } from '../api-target.ts';
import { CliError, type CommandSpec, type Io } from '../args.ts';

const ID = [{ name: 'ID', description: 'the monitor id (mon_…)' }];
const MONITORS = '/api/eligibility/monitors';

/** The id as a path segment: whatever is typed stays one segment (the API answers 404 for a bad one). */
const one = (id: string) => `${MONITORS}/${encodeURIComponent(id)}`;

/** `pause` and `resume`: the same PATCH of the monitor's status, to a different status. */
const STATUS_COMMANDS: readonly CommandSpec[] = (
  [
    ['pause', 'paused', 'pause a monitor: it creates no check until resumed'],
    ['resume', 'active', 'resume a paused monitor (a run missed while paused runs once, at once)'],
  ] as const
).map(([verb, status, summary]) => ({
  name: `monitor ${verb}`,
  summary,
  positionals: ID,
  options: { ...API_OPTIONS },
  run: ({ config, values, positionals, io }) =>
    setStatus(config(), positionals[0]!, status, values as ApiArgs, io),
}));

export const MONITOR_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'monitor list',
    summary: "list the organization's monitors, newest first (a table; --json for the API's JSON)",
    options: {
      json: { type: 'boolean', description: 'print every monitor as the API answers it, as one JSON list' },
      ...API_OPTIONS,
    },
    run: ({ config, values, io }) => listCommand(config(), values as ApiArgs & { json?: boolean }, io),
  },
  {
    name: 'monitor show',
    summary: 'print a monitor and its latest runs as JSON',
    positionals: ID,
    options: { ...API_OPTIONS },
    run: async ({ config, values, positionals, io }) =>
      printJson(io, await apiCaller(config(), values as ApiArgs)(one(positionals[0]!))),
  },
  {
    name: 'monitor create',
    summary: 'create a monitor from a JSON submit body, every N days or before each appointment date',
    positionals: [
      {
        name: 'FILE',
        description:
          'a .json with tradingPartnerServiceId, provider, subscriber and optionally encounter.serviceTypeCodes (the schedule may be in it too)',
      },
    ],
    options: {
      every: {
        type: 'string',
        value: 'DAYS',
        description: 'check every this many days (1-365), at once first',
      },
      dates: {
        type: 'string',
        value: 'DATES',
        description:
          'appointment dates, comma-separated (YYYYMMDD or YYYY-MM-DD); each checked the day before',
      },
      'idempotency-key': {
        type: 'string',
        value: 'KEY',
        description: 'sent as Idempotency-Key: running the same command again answers the same monitor',
      },
      ...API_OPTIONS,
    },
    run: ({ config, values, positionals, io }) =>
      createCommand(config(), positionals[0]!, values as ApiArgs & CreateArgs, io),
  },
  ...STATUS_COMMANDS,
  {
    name: 'monitor delete',
    summary: 'delete a monitor and the patient details it holds (its checks stay)',
    positionals: ID,
    options: { ...API_OPTIONS },
    run: async ({ config, values, positionals, io }) => {
      await apiCaller(config(), values as ApiArgs)(one(positionals[0]!), { method: 'DELETE' });
      io.stderr.write(`Monitor ${positionals[0]} deleted.\n`);
      return 0;
    },
  },
];

interface CreateArgs {
  every?: string;
  dates?: string;
  'idempotency-key'?: string;
}

function printJson(io: Io, value: unknown): number {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
}

async function listCommand(config: Config, args: ApiArgs & { json?: boolean }, io: Io): Promise<number> {
  const call = apiCaller(config, args);
  const monitors: Monitor[] = [];
  for (let after: string | null = ''; after !== null; ) {
    const query: string = after ? `?limit=100&after=${encodeURIComponent(after)}` : '?limit=100';
    const page = (await call(MONITORS + query)) as MonitorPage;
    monitors.push(...page.monitors);
    after = page.next;
  }
  if (args.json) return printJson(io, monitors);
  if (monitors.length === 0) {
    io.stderr.write('No monitors. Create one with `elig monitor create FILE.json --every 30`.\n');
    return 0;
  }
  io.stdout.write(monitorTable(monitors));
  return 0;
}

/** `every 30 days`, `1 date 20261201`, `3 dates 20261201-20261215`. */
function scheduleOf(m: Monitor): string {
  if (m.every !== null) return `every ${m.every} day${m.every === 1 ? '' : 's'}`;
  const dates = m.dates ?? [];
  if (dates.length === 1) return `1 date ${dates[0]}`;
  return `${dates.length} dates ${dates[0]}-${dates.at(-1)}`;
}

/** One line per monitor, columns aligned; no name or date of birth, the member id cut to its last four. */
export function monitorTable(monitors: readonly Monitor[]): string {
  const rows = [
    ['ID', 'STATUS', 'PAYER', 'MEMBER', 'SCHEDULE', 'NEXT RUN', 'RUNS'],
    ...monitors.map((m) => [
      m.id,
      m.status,
      m.tradingPartnerServiceId,
      `…${m.subscriber.memberId.slice(-4)}`,
      scheduleOf(m),
      m.nextRunAt ?? '-',
      String(m.runCount),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map(
      (r) =>
        `${r
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

async function createCommand(
  config: Config,
  file: string,
  args: CreateArgs & ApiArgs,
  io: Io,
): Promise<number> {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code ? `Cannot read ${file}: ${code}` : `${file} is not valid JSON.`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new CliError(
      `${file} must hold one JSON object: a submit body (tradingPartnerServiceId, provider, subscriber).`,
    );
  }
  if (args.every !== undefined && args.dates !== undefined)
    throw new CliError('Give --every or --dates, not both.');
  const schedule =
    args.every !== undefined
      ? { every: /^\d+$/.test(args.every) ? Number(args.every) : args.every }
      : args.dates !== undefined
        ? { dates: args.dates.split(/[\s,]+/).filter(Boolean) }
        : {};
  // An option replaces the file's schedule rather than adding a second one the API would refuse.
  const { every: _every, dates: _dates, ...check } = body as Record<string, unknown>;
  const sent = Object.keys(schedule).length ? { ...check, ...schedule } : body;
  const key = args['idempotency-key'];
  const monitor = (await apiCaller(config, args)(MONITORS, {
    method: 'POST',
    body: JSON.stringify(sent),
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  })) as Monitor;
  io.stderr.write(`Monitor ${monitor.id}: ${monitor.status}, next run ${monitor.nextRunAt ?? '-'}\n`);
  return printJson(io, monitor);
}

async function setStatus(
  config: Config,
  id: string,
  status: 'active' | 'paused',
  args: ApiArgs,
  io: Io,
): Promise<number> {
  const monitor = (await apiCaller(config, args)(one(id), {
    method: 'PATCH',
    body: JSON.stringify({ status }),
  })) as Monitor;
  io.stderr.write(`Monitor ${monitor.id}: ${monitor.status}\n`);
  return printJson(io, monitor);
}
