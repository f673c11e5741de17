/**
 * bench/fairness: what another organization's front desk sees while one organization floods single checks
 * (issue 26 item 3). One `elig serve` (API + one worker; on PGlite, then on PostgreSQL when BENCH_DATABASE_URL or the local one answers), the sandbox payer answering in
 * SANDBOX_LATENCY_MS. The walk-in organization submits one check every WALK_IN_EVERY_MS and polls each
 * until it finishes; its time to result is measured first alone (the baseline, same process, same run),
 * then while a flooding organization submits as fast as its six keys are let through (each key with
 * several connections, retrying a 429 after its Retry-After). Printed: the walk-in p50/p95 both ways and
 * the ratio of the p95s; target: within 2x.
 *
 *   npm run bench -- fairness
 *   BENCH_FAIRNESS_LATENCY_MS=500   the payer's latency
 *   BENCH_FAIRNESS_CHECKS=20        walk-in checks per phase
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findMember } from '../src/payers/sandbox/members.ts';
import { startServe } from './memory.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LATENCY_MS = Number(process.env.BENCH_FAIRNESS_LATENCY_MS ?? 500);
const CHECKS = Number(process.env.BENCH_FAIRNESS_CHECKS ?? 20);
const WALK_IN_EVERY_MS = 400;
const FLOOD_KEYS = 6;
const CONNECTIONS_PER_KEY = 4;
const POLL_MS = 50;
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const REQUESTS = ['SBX1000001', 'SBX1000002', 'SBX1000003', 'SBX1000005', 'SBX1000010'].map((id) => {
  const m = findMember(id);
  if (!m) throw new Error(`${id} is not a sandbox member`);
  return JSON.stringify({
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
    subscriber: { memberId: id, firstName: m.firstName, lastName: m.lastName, dateOfBirth: m.dateOfBirth },
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `elig ARGS` on the running service's store; its stdout, trimmed. */
function elig(env: Record<string, string>, args: string[]): string {
  const run = spawnSync(process.execPath, ['bin/elig.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ELIG_ENV: 'test', ...env },
  });
  if (run.status !== 0) throw new Error(`elig ${args.slice(0, 2).join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** A new organization with `n` keys, made like an operator would. */
function organizationKeys(env: Record<string, string>, name: string, n: number): string[] {
  const organization = /^org_\w+$/.exec(elig(env, ['org', 'create', '--name', name]))?.[0];
  if (!organization) throw new Error('elig org create printed no organization id');
  return Array.from({ length: n }, (_, i) => {
    const key = /elig_test_\S+/.exec(
      elig(env, ['key', 'create', '--org', organization, '--name', `key ${i}`]),
    )?.[0];
    if (!key) throw new Error('elig key create printed no key');
    return key;
  });
}

const headers = (key: string) => ({ authorization: `Key ${key}`, 'content-type': 'application/json' });

/** One walk-in check: submitted, polled until it finishes; ms to its result (NaN on an error). */
async function walkIn(url: string, key: string, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/eligibility`, {
    method: 'POST',
    headers: headers(key),
    body: REQUESTS[i % REQUESTS.length],
  });
  if (res.status !== 202) return Number.NaN;
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const status = await fetch(`${url}/api/eligibility/${id}/status`, { headers: headers(key) });
    if (status.status !== 200) return Number.NaN;
    if (((await status.json()) as { status: string }).status !== 'IN_PROGRESS') return performance.now() - t0;
    await sleep(POLL_MS);
  }
}

/** CHECKS walk-in checks, one every WALK_IN_EVERY_MS (open loop); their times to result. */
async function walkIns(url: string, key: string): Promise<number[]> {
  const pending: Promise<number>[] = [];
  for (let i = 0; i < CHECKS; i++) {
    pending.push(walkIn(url, key, i));
    await sleep(WALK_IN_EVERY_MS);
  }
  return Promise.all(pending);
}

/** Submits through every key as fast as they are let through, until `stop` says so; the count accepted. */
async function flood(
  url: string,
  keys: string[],
  stop: () => boolean,
): Promise<{ accepted: number; refused: number }> {
  let accepted = 0;
  let refused = 0;
  const loop = async (key: string, n: number) => {
    for (let i = n; !stop(); i++) {
      const res = await fetch(`${url}/api/eligibility`, {
        method: 'POST',
        headers: headers(key),
        body: REQUESTS[i % REQUESTS.length],
      });
      await res.arrayBuffer();
      if (res.status === 202) accepted++;
      else if (res.status === 429) {
        refused++;
        await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      } else await sleep(100);
    }
  };
  await Promise.all(
    keys.flatMap((key) => Array.from({ length: CONNECTIONS_PER_KEY }, (_, c) => loop(key, c))),
  );
  return { accepted, refused };
}

/** One measurement on one store: the walk-in alone, then during the flood. */
async function measure(store: string, env: Record<string, string>): Promise<void> {
  const { child, url } = await startServe({
    ...env,
    SANDBOX_LATENCY_MS: String(LATENCY_MS),
    WORKER_CONCURRENCY: '4',
    // The service's defaults for submits (per key and per organization); reads unlimited for the polling.
    RATE_LIMIT_SUBMIT: process.env.RATE_LIMIT_SUBMIT ?? '20',
    RATE_LIMIT_STATUS: '1000000',
  });
  try {
    const [walkInKey] = organizationKeys(env, 'Walk-in Clinic', 1);
    const floodKeys = organizationKeys(env, 'Flood Clinic', FLOOD_KEYS);
    const alone = await walkIns(url, walkInKey!);
    let stopped = false;
    const flooding = flood(url, floodKeys, () => stopped);
    await sleep(3_000); // a queue builds up first
    const loaded = await walkIns(url, walkInKey!);
    stopped = true;
    const { accepted, refused } = await flooding;
    const ratio = percentile(loaded, 95) / percentile(alone, 95);
    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(
      `bench/fairness (${store}, one worker of 4 slots, payer ${LATENCY_MS} ms, ${FLOOD_KEYS} flooding keys, load ${loadavg()[0]!.toFixed(1)}):`,
    );
    console.log(`  walk-in alone:        p50 ${ms(percentile(alone, 50))}, p95 ${ms(percentile(alone, 95))}`);
    console.log(
      `  walk-in during flood: p50 ${ms(percentile(loaded, 50))}, p95 ${ms(percentile(loaded, 95))}` +
        ` (flood: ${accepted} accepted, ${refused} refused)`,
    );
    console.log(`  p95 ratio (flood / alone): ${ratio.toFixed(2)}x  (target <= 2x)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function run(): Promise<void> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--strict'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`npm run build failed: ${built.stderr}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  try {
    // An empty DATABASE_URL is unset: PGlite even when the caller's environment names a PostgreSQL.
    await measure('PGlite', { DATA_DIR: dataDir, DATABASE_URL: '' });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const probe = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  if (
    !(await probe.connect().then(
      () => true,
      () => false,
    ))
  ) {
    console.log(`bench/fairness: PostgreSQL skipped (${PG_URL} does not answer)`);
    return;
  }
  const schema = `bench_fairness_${process.pid}`;
  const pgDataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  try {
    await measure('PostgreSQL', { DATA_DIR: pgDataDir, DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema });
  } finally {
    rmSync(pgDataDir, { recursive: true, force: true });
    await probe.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await probe.end();
  }
}
