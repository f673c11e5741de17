/**
 * bench/batch: a 10,000-check batch on the sandbox at latency 0, end to end through `elig serve` (API +
 * worker + dispatcher in one process, the production bundle as `npm start` runs it), on PGlite and on
 * PostgreSQL. Measured: the time to accept the batch (POST to 202), checks finished per second (POST to
 * the batch reading COMPLETED), the latency of single checks another organization submits during the
 * batch (5 a second, each polled every 50 ms until it finishes: what another practice's front desk sees
 * while the batch runs), and the peak RSS of the service process.
 *
 * The baseline, in the same run on a fresh store: the same 10,000 checks as single submits (64
 * connections, as fast as the API takes them) until the queue is empty. Target: the batch at least 2x
 * faster end to end.
 *
 *   npm run bench -- batch
 *   BENCH_BATCH_CHECKS=10000      checks per run
 *   BENCH_DATABASE_URL=...        the PostgreSQL to use (default the local one; skipped when none answers)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { ConfigSchema } from '../src/config.ts';
import { findMember } from '../src/payers/sandbox/members.ts';
import { memoryOf, startServe } from './memory.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CHECKS = Number(process.env.BENCH_BATCH_CHECKS ?? 10_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Single checks submitted during the batch: one every this many ms (open loop). */
const WALK_IN_EVERY_MS = 200;
const DEFAULT_SUBMIT_RATE = Number(
  (ConfigSchema.properties.rateLimitSubmit as { default?: unknown }).default,
);
const POLL_MS = 50;

/** Sandbox members with an answer (active and inactive plans), read from the sandbox's own table. */
const REQUESTS = ['SBX1000001', 'SBX1000002', 'SBX1000003', 'SBX1000005', 'SBX1000010'].map((id) => {
  const m = findMember(id);
  if (!m) throw new Error(`${id} is not a sandbox member`);
  return {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
    subscriber: { memberId: id, firstName: m.firstName, lastName: m.lastName, dateOfBirth: m.dateOfBirth },
  };
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Serve {
  url: string;
  headers: Record<string, string>;
  /** The key of a second organization, made with `elig org create` and `elig key create` once serving. */
  walkInHeaders: Record<string, string>;
  /** Peak RSS (MB) sampled every 100 ms, and the kernel's high-water mark at the end. */
  peakRss(): number;
  stop(): Promise<void>;
}

/** `elig ARGS` on the running service's store (through its admin endpoint on PGlite); its stdout, trimmed. */
function elig(env: Record<string, string>, args: string[]): string {
  const run = spawnSync(process.execPath, ['bin/elig.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ELIG_ENV: 'test', ...env },
  });
  if (run.status !== 0) throw new Error(`elig ${args.slice(0, 2).join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** A key of a second organization, made on the running service's store like an operator would. */
function walkInOrganizationKey(env: Record<string, string>): string {
  const created = elig(env, ['org', 'create', '--name', 'Walk-in Clinic']);
  const organization = /^org_\w+$/.exec(created)?.[0];
  if (!organization)
    throw new Error(`elig org create printed no organization id: ${JSON.stringify(created)}`);
  const key = /elig_test_\S+/.exec(
    elig(env, ['key', 'create', '--org', organization, '--name', 'walk-ins']),
  )?.[0];
  if (!key) throw new Error('elig key create printed no key');
  return key;
}

async function serve(env: Record<string, string>): Promise<Serve> {
  const { child, url, key } = await startServe({
    SANDBOX_LATENCY_MS: '0',
    RATE_LIMIT_STATUS: '1000000',
    ...env,
  });
  let walkInKey: string;
  try {
    walkInKey = walkInOrganizationKey(env);
  } catch (err) {
    child.kill('SIGTERM'); // not left serving after a failed bench
    throw err;
  }
  let peak = memoryOf(child.pid!).rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(child.pid!).rss);
  }, 100);
  return {
    url,
    headers: { authorization: `Key ${key}`, 'content-type': 'application/json' },
    walkInHeaders: { authorization: `Key ${walkInKey}`, 'content-type': 'application/json' },
    peakRss: () => Math.max(peak, memoryOf(child.pid!).peak),
    async stop() {
      clearInterval(sampler);
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

interface BatchRun {
  acceptMs: number;
  seconds: number;
  singles: number[];
  peakMb: number;
  errors: number;
}

/**
 * One single check of the second organization: submitted, then polled until it finishes; its latency in ms
 * (NaN on an error).
 */
async function singleCheck(s: Serve, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/api/eligibility`, {
    method: 'POST',
    headers: s.walkInHeaders,
    body: JSON.stringify(REQUESTS[i % REQUESTS.length]),
  });
  if (res.status !== 202) return Number.NaN;
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const status = await fetch(`${s.url}/api/eligibility/${id}/status`, { headers: s.walkInHeaders });
    if (status.status !== 200) return Number.NaN;
    const body = (await status.json()) as { status: string };
    if (body.status !== 'IN_PROGRESS') return performance.now() - t0;
    await sleep(POLL_MS);
  }
}

async function batchRun(env: Record<string, string>): Promise<BatchRun> {
  const s = await serve(env);
  try {
    const checks = Array.from({ length: CHECKS }, (_, i) => REQUESTS[i % REQUESTS.length]);
    const body = JSON.stringify({ name: 'bench', checks });
    let done = false;
    let errors = 0;
    const walkIns: Promise<number>[] = [];
    const t0 = performance.now();
    const walking = (async () => {
      for (let i = 0; !done; i++) {
        walkIns.push(singleCheck(s, i));
        await sleep(WALK_IN_EVERY_MS);
      }
    })();
    const res = await fetch(`${s.url}/api/eligibility/batch`, { method: 'POST', headers: s.headers, body });
    const acceptMs = performance.now() - t0;
    if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    for (;;) {
      const b = await fetch(`${s.url}/api/eligibility/batch/${id}?limit=1`, { headers: s.headers });
      if (b.status >= 500) errors++;
      if (b.ok && ((await b.json()) as { status: string }).status === 'COMPLETED') break;
      if (performance.now() - t0 > 900_000) throw new Error('batch not completed in 15 minutes');
      await sleep(250);
    }
    const seconds = (performance.now() - t0) / 1000;
    done = true;
    await walking;
    const latencies = await Promise.all(walkIns);
    errors += latencies.filter((ms) => Number.isNaN(ms)).length;
    return {
      acceptMs,
      seconds,
      singles: latencies.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b),
      peakMb: s.peakRss(),
      errors,
    };
  } finally {
    await s.stop();
  }
}

interface SinglesRun {
  seconds: number;
  submitSeconds: number;
  peakMb: number;
  errors: number;
}

async function queueDepth(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  return Number(/^elig_queue_depth (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

async function singlesRun(env: Record<string, string>): Promise<SinglesRun> {
  const s = await serve(env);
  try {
    const t0 = performance.now();
    const load = await autocannon({
      url: `${s.url}/api/eligibility`,
      method: 'POST',
      connections: 64,
      amount: CHECKS,
      headers: s.headers,
      requests: REQUESTS.map((r) => ({ body: JSON.stringify(r) })),
    });
    const submitSeconds = (performance.now() - t0) / 1000;
    while ((await queueDepth(s.url)) !== 0) {
      if (performance.now() - t0 > 900_000) throw new Error('singles not drained in 15 minutes');
      await sleep(100);
    }
    return {
      seconds: (performance.now() - t0) / 1000,
      submitSeconds,
      peakMb: s.peakRss(),
      errors: load.errors + load.non2xx,
    };
  } finally {
    await s.stop();
  }
}

interface StoreResult {
  label: string;
  batch: BatchRun;
  singles: SinglesRun;
}

/** Both runs on one kind of store, each on a fresh one (a new data directory or schema). */
async function onStore(label: string, fresh: () => { env: Record<string, string>; drop(): Promise<void> }) {
  const runs: Partial<StoreResult> = { label };
  for (const kind of ['batch', 'singles'] as const) {
    const store = fresh();
    try {
      if (kind === 'batch') runs.batch = await batchRun(store.env);
      else runs.singles = await singlesRun(store.env);
    } finally {
      await store.drop();
    }
  }
  return runs as StoreResult;
}

function print(results: StoreResult[], load: number): void {
  console.log(
    `\nbench/batch: ${CHECKS.toLocaleString('en')} sandbox checks (latency 0) through \`elig serve\`, as one batch ` +
      `and as single submits (64 connections), each on a fresh store; single checks of another organization ` +
      `every ${WALK_IN_EVERY_MS} ms during the batch. ${cpus().length} cores, load average before ${load.toFixed(2)}.`,
  );
  console.log(
    'store      | batch: accept ms | s     | checks/s | singles: s (submit s) | checks/s | batch / singles | ' +
      'single checks during batch: n, p50/p99/max ms | peak RSS MB batch/singles | errors',
  );
  for (const { label, batch: b, singles: s } of results) {
    const perS = CHECKS / b.seconds;
    const singlesPerS = CHECKS / s.seconds;
    console.log(
      `${label.padEnd(10)} | ${b.acceptMs.toFixed(0).padStart(16)} | ${b.seconds.toFixed(1).padStart(5)} | ${perS.toFixed(0).padStart(8)} | ` +
        `${`${s.seconds.toFixed(1)} (${s.submitSeconds.toFixed(1)})`.padStart(21)} | ${singlesPerS.toFixed(0).padStart(8)} | ` +
        `${`${(perS / singlesPerS).toFixed(2)}x`.padStart(15)} | ` +
        `${b.singles.length}, ${percentile(b.singles, 50).toFixed(0)}/${percentile(b.singles, 99).toFixed(0)}/${percentile(b.singles, 100).toFixed(0)} | ` +
        `${b.peakMb.toFixed(0)}/${s.peakMb.toFixed(0)} | ${b.errors + s.errors}`,
    );
  }
  // The singles above run with the submit limit lifted (RATE_LIMIT_SUBMIT 1,000,000/s): the engine's cost
  // per check, the hardest comparison. A client on the default limit cannot submit faster than the bucket
  // refills, so its end-to-end time has that floor, computed here rather than waited for.
  const floor = CHECKS / DEFAULT_SUBMIT_RATE;
  for (const { label, batch: b } of results) {
    console.log(
      `${label}: at the default submit limit (${DEFAULT_SUBMIT_RATE}/s per key) ${CHECKS.toLocaleString('en')} single ` +
        `submits take at least ${floor.toFixed(0)} s, so the batch is >= ${(floor / b.seconds).toFixed(1)}x faster end to end`,
    );
  }
  console.log(
    'target: batch / singles >= 2x end to end; batch accepted in < 5000 ms; single checks p99 < 5000 ms',
  );
}

export async function run(): Promise<void> {
  // The production path, as `npm start` runs it: bin/elig.mjs runs the bundle when it is fresh.
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--strict'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`npm run build failed: ${built.stderr}`);
  const load = loadavg()[0]!;
  const results: StoreResult[] = [];
  results.push(
    await onStore('PGlite', () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
      return {
        // An empty DATABASE_URL is unset: PGlite even when the caller's environment names a PostgreSQL.
        env: { DATA_DIR: dataDir, DATABASE_URL: '' },
        drop: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    }),
  );
  const probe = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  const reachable = await probe.connect().then(
    () => true,
    () => false,
  );
  if (reachable) {
    let n = 0;
    results.push(
      await onStore('PostgreSQL', () => {
        const schema = `bench_batch_${process.pid}_${n++}`;
        const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
        return {
          env: { DATA_DIR: dataDir, DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema },
          drop: async () => {
            rmSync(dataDir, { recursive: true, force: true });
            await probe.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
          },
        };
      }),
    );
    await probe.end();
  } else {
    console.log(`\nbench/batch: no PostgreSQL at ${PG_URL}; skipped that run`);
  }
  print(results, load);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
