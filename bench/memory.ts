/**
 * bench/memory: resident memory of an `elig serve` process (API + worker + dispatcher in one) while 10,000
 * accepted checks are in flight, on the embedded PGlite store (whose database lives inside the process)
 * and on PostgreSQL. The baseline is the same process idle after start-up. Target: peak RSS <= 150 MB.
 *
 *   node --import tsx bench/memory.ts
 *   BENCH_MEMORY_CHECKS=10000   checks submitted (64 connections, as fast as the API takes them)
 *   SANDBOX_LATENCY_MS=100      payer latency, so the backlog drains slower than it fills
 *   BENCH_ELIG_ENTRY=...        node arguments of the process instead of `bin/elig.mjs` (to compare, say,
 *                               an esbuild bundle run without tsx, or V8 heap flags)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CHECKS = Number(process.env.BENCH_MEMORY_CHECKS ?? 10_000);
const LATENCY_MS = process.env.SANDBOX_LATENCY_MS ?? '100';
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const REQUEST = JSON.stringify({
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
});

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

export async function startServe(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_ELIG_ENTRY ?? 'bin/elig.mjs').split(' '), 'serve'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ELIG_ENV: 'test',
        PORT: '0',
        LOG_LEVEL: 'warn',
        SANDBOX_LATENCY_MS: LATENCY_MS,
        RATE_LIMIT_SUBMIT: '1000000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /API:\s+(http:\/\/\S+)\/api\/eligibility/.exec(out)?.[1];
      const key = /Test API key:\s+(\S+)/.exec(out)?.[1];
      if (url && key) resolve({ child, url, key });
    });
    child.once('exit', (code) => reject(new Error(`elig serve exited (${code})`)));
  });
}

async function queueDepth(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  return Number(/^elig_queue_depth (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

interface Result {
  label: string;
  idle: number;
  peak: number;
  inFlight: number;
  afterDrain: number;
  drainSeconds: number;
  errors: number;
}

async function measure(label: string, env: Record<string, string>): Promise<Result> {
  const { child, url, key } = await startServe(env);
  const pid = child.pid!;
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = memoryOf(pid).rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(pid).rss);
    }, 100);
    const t0 = performance.now();
    const load = await autocannon({
      url: `${url}/api/eligibility`,
      method: 'POST',
      connections: 64,
      amount: CHECKS,
      headers: { authorization: `Key ${key}`, 'content-type': 'application/json' },
      body: REQUEST,
    });
    const inFlight = await queueDepth(url);
    while ((await queueDepth(url)) > 0) {
      if (performance.now() - t0 > 600_000) throw new Error('backlog not drained in 10 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    const drainSeconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const after = memoryOf(pid);
    return {
      label,
      idle,
      peak: Math.max(peak, after.peak),
      inFlight,
      afterDrain: after.rss,
      drainSeconds,
      errors: load.errors + load.non2xx,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function run(): Promise<void> {
  // The production path first: `npm run build`, then bin/elig.mjs runs dist/elig.mjs (as `npm start` does);
  // then the same process running the sources through tsx, as the baseline it replaces.
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--strict'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`npm run build failed: ${built.stderr}`);
  const runtimes: [string, Record<string, string>][] = [
    ['bundle', {}],
    ['tsx', { ELIG_RUNTIME: 'tsx' }],
  ];
  const results: Result[] = [];
  for (const [runtime, runtimeEnv] of runtimes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
    try {
      results.push(await measure(`PGlite, ${runtime}`, { ...runtimeEnv, DATA_DIR: dataDir }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const probe = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  const reachable = await probe.connect().then(
    () => true,
    () => false,
  );
  if (reachable) {
    for (const [runtime, runtimeEnv] of runtimes) {
      const schema = `bench_memory_${process.pid}`;
      const pgDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
      try {
        results.push(
          await measure(`PostgreSQL, ${runtime}`, {
            ...runtimeEnv,
            DATA_DIR: pgDir,
            DATABASE_URL: PG_URL,
            DATABASE_SCHEMA: schema,
          }),
        );
      } finally {
        rmSync(pgDir, { recursive: true, force: true });
        await probe.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      }
    }
    await probe.end();
  } else {
    console.log(`\nbench/memory: no PostgreSQL at ${PG_URL}; skipped that run`);
  }

  console.log(
    `\nbench/memory: RSS of \`elig serve\` (API + worker + dispatcher) with ${CHECKS.toLocaleString('en')} checks ` +
      `submitted at 64 connections, sandbox latency ${LATENCY_MS} ms`,
  );
  console.log(
    'store, runtime     | idle MB (baseline) | peak MB | in flight after submit | after drain MB | drained in s | errors',
  );
  for (const r of results) {
    console.log(
      `${r.label.padEnd(18)} | ${r.idle.toFixed(0).padStart(18)} | ${r.peak.toFixed(0).padStart(7)} | ` +
        `${String(r.inFlight).padStart(22)} | ${r.afterDrain.toFixed(0).padStart(14)} | ${r.drainSeconds.toFixed(0).padStart(12)} | ${r.errors}`,
    );
  }
  console.log('target: peak <= 150 MB');
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
