/**
 * bench/clearinghouse: a clearinghouse account's limit, end to end, against its ceiling.
 *
 * A fake clearinghouse (loopback) allows 5 requests at once and answers each after 50 ms, so no client can
 * finish more than 5 / 0.05 s = 100 checks/s through it: that is the ceiling. 2,000 checks across 200 of its
 * payers are submitted through the API at once; the bench reports checks/s against the ceiling (target
 * ≥ 0.9), the 429s the fake answered (target 0), and the peak concurrency it saw.
 *
 * A second connection (another fake: 5 at once, 50 ms) carries a trickle of checks (4 at a time), first
 * alone, then while the 2,000 run: its p99 from submission to completion while the big run goes on, over
 * its p99 alone (target ≤ 2): one account's queue must not hold up another's.
 *
 * Stores: PGlite (one service process), and PostgreSQL with two worker processes (the service process,
 * with the API and a worker, and a second `elig worker` process on the same database), which must share
 * the limit. The service runs in a child process (bench/service-process.ts); this process only submits,
 * polls and plays the fakes, and reports how busy it was (a saturated harness measures itself).
 *
 *   npm run bench -- clearinghouse [--store pglite|postgres]
 *                                       (BENCH_DATABASE_URL, default the local PostgreSQL;
 *                                        BENCH_CLEARINGHOUSE_CHECKS, default 2000)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectPath } from '../src/paths.ts';
import { startClearinghouseFake } from '../test/payers/fakes/clearinghouse.ts';
import { cpuMs } from './e2e-run.ts';

const CHECKS = Number(process.env.BENCH_CLEARINGHOUSE_CHECKS ?? 2_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LIMIT = 5;
const LATENCY_MS = Number(process.env.BENCH_CLEARINGHOUSE_LATENCY_MS ?? 50);
const CEILING = LIMIT / (LATENCY_MS / 1000);
const TRICKLE = 40;
const env = { BENCH_CH_KEY: 'bench-ch-key', BENCH_OTHER_KEY: 'bench-other-key' };
const JANE = { memberId: 'M100200300', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const PROVIDER = { organizationName: 'Bench Clinic', npi: '1234567893' };

/** Busy and total jiffies of the whole machine (/proc/stat), to say how busy every core was over a run. */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), total };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

interface Api {
  url: string;
  key: string;
}

async function submit(api: Api, payer: string): Promise<string> {
  for (;;) {
    const res = await fetch(`${api.url}/api/eligibility`, {
      method: 'POST',
      headers: { authorization: `Key ${api.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tradingPartnerServiceId: payer,
        provider: PROVIDER,
        subscriber: JANE,
        encounter: { serviceTypeCodes: ['30'] },
      }),
    });
    const body = (await res.json()) as { id: string };
    if (res.status === 202) return body.id;
    if (res.status !== 429 && res.status !== 503) throw new Error(`submit answered ${res.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls until finished; the time from submission to the answer being readable. */
async function finished(api: Api, id: string, started: number): Promise<number> {
  for (;;) {
    const res = await fetch(`${api.url}/api/eligibility/${id}/status`, {
      headers: { authorization: `Key ${api.key}` },
    });
    const body = (await res.json()) as { status: string };
    if (body.status !== 'IN_PROGRESS') {
      if (body.status !== 'COMPLETED') throw new Error(`a check ended ${body.status}`);
      return performance.now() - started;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * `count` submits as fast as the API takes them, through 64 connections (thousands of sockets at once
 * overflow the listen backlog and get reset, which measures the kernel, not the service).
 */
async function submitAll(api: Api, count: number, payerOf: (i: number) => string): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        const i = next++;
        ids[i] = await submit(api, payerOf(i));
      }
    }),
  );
  return ids;
}

/** `TRICKLE` checks on the other connection, 4 at a time; p99 latency. */
async function trickle(api: Api, payers: string[]): Promise<number> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < TRICKLE) {
        const payer = payers[next++ % payers.length]!;
        const t = performance.now();
        latencies.push(await finished(api, await submit(api, payer), t));
      }
    }),
  );
  return percentile(
    latencies.sort((a, b) => a - b),
    99,
  );
}

/** The checks as one batch (background work, as a practice sends a schedule); seconds until all are done. */
async function batchRun(api: Api, payers: string[], count: number): Promise<number> {
  const started = performance.now();
  const checks = Array.from({ length: count }, (_, i) => ({
    tradingPartnerServiceId: payers[i % payers.length]!,
    provider: PROVIDER,
    subscriber: JANE,
    encounter: { serviceTypeCodes: ['30'] },
  }));
  const res = await fetch(`${api.url}/api/eligibility/batch`, {
    method: 'POST',
    headers: { authorization: `Key ${api.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ checks }),
  });
  const { id } = (await res.json()) as { id: string };
  if (res.status !== 202) throw new Error(`batch submit answered ${res.status}`);
  for (;;) {
    const r = await fetch(`${api.url}/api/eligibility/batch/${id}`, {
      headers: { authorization: `Key ${api.key}` },
    });
    const body = (await r.json()) as { counts: { IN_PROGRESS: number; FAILED: number } };
    if (body.counts.IN_PROGRESS === 0) {
      if (body.counts.FAILED) throw new Error(`${body.counts.FAILED} batch checks failed`);
      return (performance.now() - started) / 1000;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `count` checks over `payers`, all submitted at once; checks/s from the first submit to the last answer. */
async function throughput(api: Api, payers: string[], count: number): Promise<number> {
  const started = performance.now();
  const ids = await submitAll(api, count, (i) => payers[i % payers.length]!);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < ids.length) await finished(api, ids[next++]!, started);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** The `service {url, apiKey}` line bench/service-process.ts prints once it serves. */
function serviceApi(child: ChildProcess): Promise<Api> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`the service process exited (${code}) before serving`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('service {'));
      if (line) {
        const { url, apiKey } = JSON.parse(line.slice('service '.length)) as { url: string; apiKey: string };
        resolve({ url, key: apiKey });
      }
    });
  });
}

async function stopped(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exit = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exit;
}

async function scenario(store: 'pglite' | 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'elig-bench-ch-'));
  const big = await startClearinghouseFake({
    apiKey: env.BENCH_CH_KEY,
    payers: 200,
    concurrency: LIMIT,
    latencyMs: LATENCY_MS,
  });
  // The service's own ceiling in this run: the same checks through an account with no limit at all.
  const free = await startClearinghouseFake({
    apiKey: env.BENCH_CH_KEY,
    payers: 200,
    concurrency: 10_000,
    latencyMs: LATENCY_MS,
  });
  const other = await startClearinghouseFake({
    apiKey: env.BENCH_OTHER_KEY,
    payers: 20,
    concurrency: LIMIT,
    latencyMs: LATENCY_MS,
  });
  const file = join(dir, 'payers.json');
  const connection = (url: string, keyEnv: string) => ({
    type: 'x12-json',
    url,
    auth: { type: 'api-key', key: { env: keyEnv } },
    limits: { concurrency: LIMIT },
  });
  writeFileSync(
    file,
    JSON.stringify({
      connections: {
        big: connection(big.url, 'BENCH_CH_KEY'),
        other: connection(other.url, 'BENCH_OTHER_KEY'),
        free: { type: 'x12-json', url: free.url, auth: { type: 'api-key', key: { env: 'BENCH_CH_KEY' } } },
      },
      payers: [
        ...big.payers.map((p) => ({ id: p.id, name: `Big ${p.id}`, payerId: p.id, connection: 'big' })),
        ...free.payers.map((p) => ({
          id: `F${p.id}`,
          name: `Free ${p.id}`,
          payerId: p.id,
          connection: 'free',
        })),
        ...other.payers.map((p) => ({
          id: `O${p.id}`,
          name: `Other ${p.id}`,
          payerId: p.id,
          connection: 'other',
        })),
      ],
    }),
  );
  const schema = `bench_ch_${process.pid}`;
  const vars = {
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dir,
    PAYERS_FILE: file,
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '16',
    RATE_LIMIT_SUBMIT: '100000',
    RATE_LIMIT_STATUS: '100000',
    BATCH_MAX_PENDING_CHECKS: '100000',
    ...(store === 'postgres' ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema } : {}),
  };
  let service: ChildProcess | undefined;
  let second: ChildProcess | undefined;
  try {
    // The service in a process of its own (as in production): the fakes and this load generator must not
    // share its event loop, or the bench measures its own harness.
    service = spawn(process.execPath, ['--import', 'tsx', projectPath('bench/service-process.ts')], {
      env: { ...process.env, ...vars, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const api = await serviceApi(service);
    if (store === 'postgres') {
      second = spawn(process.execPath, [projectPath('bin/elig.mjs'), 'worker'], {
        env: { ...process.env, ...vars, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      await new Promise((r) => setTimeout(r, 3_000));
    }
    const otherPayers = other.payers.map((p) => `O${p.id}`);
    const alone = await trickle(api, otherPayers);
    const baseline = await throughput(
      api,
      free.payers.map((p) => `F${p.id}`),
      Math.ceil(CHECKS / 2),
    );
    big.resetStats();
    const elu = performance.eventLoopUtilization();
    const cpu0 = cpuMs(service.pid!);
    const machine0 = machineTicks();
    const started = performance.now();
    const ids = await submitAll(api, CHECKS, (i) => big.payers[i % big.payers.length]!.id);
    const during = trickle(api, otherPayers);
    // Completion of all: poll in a few lanes so the polling itself stays small next to the work.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < ids.length) await finished(api, ids[next++]!, started);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const busy = performance.eventLoopUtilization(elu).utilization;
    const serviceCpu = (cpuMs(service.pid!) - cpu0) / (seconds * 1000);
    const machine1 = machineTicks();
    const machineBusy = (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total);
    const duringP99 = await during;
    const perSecond = CHECKS / seconds;
    const label = store === 'postgres' ? 'PostgreSQL, 2 worker processes' : 'PGlite, 1 process';
    const reachable = Math.min(CEILING, baseline);
    console.log(
      `bench/clearinghouse ${label}: baseline, the same checks through an unlimited account: ${baseline.toFixed(1)} checks/s; ` +
        `the limited run reaches ${(perSecond / reachable).toFixed(2)} of min(ceiling, baseline) = ${reachable.toFixed(1)}/s`,
    );
    console.log(
      `bench/clearinghouse ${label}: ${CHECKS} checks over 200 payers in ${seconds.toFixed(1)} s = ${perSecond.toFixed(1)} checks/s; ` +
        `ceiling ${CEILING}/s -> ratio ${(perSecond / CEILING).toFixed(2)} (target >= 0.90); ` +
        `429s from the fake ${big.stats.tooManyRequests} (target 0), peak concurrency ${big.stats.maxConcurrent}/${LIMIT}, ` +
        `mean ${(big.stats.busyMs / (seconds * 1000)).toFixed(2)}, mean time in the fake ${(big.stats.busyMs / Math.max(1, big.stats.calls)).toFixed(0)} ms; ` +
        `this process (load and fakes; the service runs in its own) was busy ${(busy * 100).toFixed(0)}% of the time, the service process used ${(serviceCpu * 100).toFixed(0)}% of a core, ` +
        `the machine's ${cpus().length} cores were ${(machineBusy * 100).toFixed(0)}% busy`,
    );
    console.log(
      `bench/clearinghouse ${label}: second connection p99 alone ${alone.toFixed(0)} ms, during the run ${duringP99.toFixed(0)} ms -> ratio ${(duringP99 / alone).toFixed(2)} (target <= 2)`,
    );
    // The same load as a batch: background checks, which leave a quarter of each worker to interactive ones.
    big.resetStats();
    const batchElu = performance.eventLoopUtilization();
    const duringBatch = trickle(api, otherPayers);
    const batchSeconds = await batchRun(
      api,
      big.payers.map((p) => p.id),
      CHECKS,
    );
    const duringBatchP99 = await duringBatch;
    console.log(
      `bench/clearinghouse ${label}: as one batch: ${(CHECKS / batchSeconds).toFixed(1)} checks/s -> ratio ${(CHECKS / batchSeconds / CEILING).toFixed(2)} of the ceiling; ` +
        `mean concurrency ${(big.stats.busyMs / (batchSeconds * 1000)).toFixed(2)}, this process busy ` +
        `${(performance.eventLoopUtilization(batchElu).utilization * 100).toFixed(0)}%; ` +
        `429s ${big.stats.tooManyRequests}; second connection p99 during it ${duringBatchP99.toFixed(0)} ms -> ratio ${(duringBatchP99 / alone).toFixed(2)} (target <= 2)`,
    );
  } finally {
    await Promise.all([stopped(second), stopped(service)]);
    await Promise.all([big.close(), other.close(), free.close()]);
    if (store === 'postgres') {
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--store pglite` or `--store postgres` runs one store only. */
export async function run(options: string[] = []): Promise<void> {
  const i = options.indexOf('--store');
  const only = i >= 0 ? options[i + 1] : undefined;
  if (only !== undefined && only !== 'pglite' && only !== 'postgres') {
    throw new Error(`--store takes pglite or postgres, not ${only}`);
  }
  if (only !== 'postgres') await scenario('pglite');
  if (only !== 'pglite') await scenario('postgres');
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
