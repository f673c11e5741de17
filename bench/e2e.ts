/**
 * bench/e2e: the whole check path, this tree against a baseline commit, on both stores. Each run starts one
 * `elig serve` of one tree on a fresh store, makes an organization, an API key and a webhook with that tree's
 * CLI, and pushes sandbox checks (latency 0) through it at 32 concurrent, each polled to its end; the
 * webhook's deliveries are awaited too (bench/e2e-run.ts). The baseline is built once in a git worktree
 * under .tmp/bench-trees/ (bench/e2e-tree.ts). Runs alternate baseline, this tree, baseline, this tree…
 * per store, so a burst of load from other jobs falls on both; the report gives each run, the medians and
 * this tree ÷ baseline.
 *
 *   npm run bench -- e2e [--baseline COMMIT] [--runs N] [--checks N] [--concurrency N] [--warmup N]
 *                        [--no-webhook] [--store pglite|postgres|both] [--poll-ms N] [--timeout-s N]
 *
 * Defaults: --baseline 9c645ce (the end of the work before verdicts, history, coverage comparison, request
 * repair and SNIP validation; issue 27), 3 runs, 3000 checks, 32 concurrent, 100 warm-up checks, a webhook,
 * both stores (PostgreSQL at BENCH_DATABASE_URL, default the local one, skipped when none answers), status
 * read every 20 ms, 600 s per run at most.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { measureRun, type RunOptions, type RunResult, type Store } from './e2e-run.ts';
import { type BenchTree, baselineTree, candidateTree } from './e2e-tree.ts';

const OPTIONS = {
  baseline: { type: 'string', default: '9c645ce' },
  runs: { type: 'string', default: '3' },
  checks: { type: 'string', default: '3000' },
  concurrency: { type: 'string', default: '32' },
  warmup: { type: 'string', default: '100' },
  'no-webhook': { type: 'boolean', default: false },
  store: { type: 'string', default: 'both' },
  'poll-ms': { type: 'string', default: '20' },
  'timeout-s': { type: 'string', default: '600' },
} as const;

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`bench/e2e: --${name} must be a whole number`);
  return n;
}

async function stores(which: string): Promise<Store[]> {
  const out: Store[] = [];
  if (which === 'both' || which === 'pglite') out.push({ name: 'PGlite' });
  if (which !== 'both' && which !== 'postgres') return out;
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
    out.push({ name: 'PostgreSQL', url });
  } catch {
    console.log(`bench/e2e: no PostgreSQL at ${url}; skipped the PostgreSQL runs`);
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fixed = (n: number, digits: number) => n.toFixed(digits);

function report(store: string, trees: BenchTree[], results: RunResult[][]): void {
  const [base, ours] = results as [RunResult[], RunResult[]];
  const row = (what: string, pick: (r: RunResult) => number, digits: number) => {
    const b = median(base.map(pick));
    const o = median(ours.map(pick));
    const runs = (rs: RunResult[]) => rs.map((r) => fixed(pick(r), digits)).join(', ');
    console.log(
      `| ${what} | ${runs(base)} (median ${fixed(b, digits)}) | ${runs(ours)} (median ${fixed(o, digits)}) | ${b ? fixed(o / b, 2) : '–'} |`,
    );
  };
  console.log(`\n${store}`);
  console.log(`| | ${trees[0]!.label} | ${trees[1]!.label} | this tree ÷ baseline |`);
  console.log('|---|---|---|---|');
  row('checks/s completed', (r) => r.checksPerSecond, 0);
  row('CPU ms per check (service process)', (r) => r.cpuMsPerCheck, 2);
  row('status reads per check', (r) => r.pollsPerCheck, 1);
  row('submits turned away (503/429) and retried', (r) => r.shed, 0);
  const notes = [...base, ...ours].filter((r) => r.failed || r.incomplete);
  if (notes.length)
    console.log(
      `warning: ${notes.length} run(s) had failed checks or stopped before the end: ${notes
        .map((r) => `${r.failed} failed${r.incomplete ? ', incomplete' : ''}`)
        .join('; ')}`,
    );
}

export async function run(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  const options: RunOptions = {
    checks: positive('checks', values.checks),
    concurrency: Math.max(1, positive('concurrency', values.concurrency)),
    warmup: positive('warmup', values.warmup),
    webhook: !values['no-webhook'],
    pollMs: positive('poll-ms', values['poll-ms']),
    timeoutMs: positive('timeout-s', values['timeout-s']) * 1000,
  };
  const runs = Math.max(1, positive('runs', values.runs));
  const trees = [baselineTree(values.baseline), candidateTree()];
  console.log(
    `\nbench/e2e: ${options.checks} sandbox checks (latency 0) at ${options.concurrency} concurrent after ` +
      `${options.warmup} warm-up ones, each polled every ${options.pollMs} ms to its end, ` +
      `${options.webhook ? 'a webhook configured (deliveries awaited)' : 'no webhook'}; ` +
      `${trees.map((t) => `${t.label}${t.bundle ? '' : ' (sources via tsx)'}`).join(' and ')} alternate, ${runs} run(s) each`,
  );
  for (const store of await stores(values.store)) {
    const results: RunResult[][] = trees.map(() => []);
    for (let r = 0; r < runs; r++) {
      for (let k = 0; k < trees.length; k++) {
        const result = await measureRun(trees[k]!, store, options);
        results[k]!.push(result);
        process.stderr.write(
          `bench/e2e: ${store.name} run ${r + 1}/${runs} ${trees[k]!.label}: ${fixed(result.checksPerSecond, 0)} checks/s, ${fixed(result.cpuMsPerCheck, 2)} CPU ms/check, ${result.deliveries} deliveries\n`,
        );
      }
    }
    report(store.name, trees, results);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));
