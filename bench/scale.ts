/**
 * bench/scale: completed checks per second when worker processes drain a backlog on PostgreSQL, with 1 and
 * then 2 `elig worker` child processes (sandbox latency 0, so the work is CPU: 270 build, 271 parse,
 * benefits, the finishing transaction). The 1-worker run is the baseline; the ratio 2/1 is the scaling.
 * Also reports the CPU the workers and PostgreSQL used, from /proc, since on a small machine they share it.
 *
 *   node --import tsx bench/scale.ts        (BENCH_DATABASE_URL, default the local PostgreSQL)
 *   BENCH_SCALE_CHECKS=3000                  backlog per run
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { uuidv7 } from '../src/ids.ts';
import { CHECKS_CHANNEL } from '../src/store/channels.ts';
import { openStore } from '../src/store/open.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';

const URL_ = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CHECKS = Number(process.env.BENCH_SCALE_CHECKS ?? 3000);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TICKS = 100; // USER_HZ on Linux

const MEMBERS = [
  { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
  { memberId: 'SBX1000002', firstName: 'JOHN', lastName: 'SMITH', dateOfBirth: '19750704' },
  { memberId: 'SBX1000005', firstName: 'LINDA', lastName: 'WILLIAMS', dateOfBirth: '19881122' },
  { memberId: 'SBX1000010', firstName: 'EMMA', lastName: 'WILSON', dateOfBirth: '19850315' },
];

/** utime + stime of a process, in seconds (0 if it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** Every process named `postgres` (the whole cluster: other users of it count too). */
function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    });
}

function clusterCpu(): Map<number, number> {
  return new Map(postgresPids().map((pid) => [pid, cpuSeconds(pid)]));
}

function cpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, now] of clusterCpu()) total += now - (before.get(pid) ?? 0);
  return total;
}

function startWorker(schema: string, dataDir: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, ['bin/elig.mjs', 'worker'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: URL_,
      DATABASE_SCHEMA: schema,
      DATA_DIR: dataDir,
      ELIG_ENV: 'test',
      SANDBOX_LATENCY_MS: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Eligibility service ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
  return { child, ready };
}

interface RunResult {
  workers: number;
  seconds: number;
  perSecond: number;
  workerCpu: number;
  postgresCpu: number;
  serviceBackendsCpu: number;
}

async function drain(db: pg.Client, schema: string, org: string, workers: number): Promise<RunResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  const procs = Array.from({ length: workers }, () => startWorker(schema, dataDir));
  await Promise.all(procs.map((p) => p.ready));
  await new Promise((r) => setTimeout(r, 500)); // let start-up queries settle

  const ids = Array.from({ length: CHECKS }, () => uuidv7());
  const requests = ids.map((_, i) =>
    JSON.stringify({
      tradingPartnerServiceId: 'SANDBOX',
      provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
      subscriber: MEMBERS[i % MEMBERS.length],
    }),
  );
  const workerCpu0 = procs.map((p) => cpuSeconds(p.child.pid!));
  const cluster0 = clusterCpu();
  const backends0 = await serviceBackends(db, schema);
  const t0 = performance.now();
  const { rows } = await db.query<{ started: Date }>(
    `WITH ins AS (
       INSERT INTO "${schema}".checks (id, organization_id, status, trading_partner_service_id, request)
       SELECT id, $1, 'IN_PROGRESS', 'SANDBOX', req::jsonb FROM unnest($2::text[], $3::text[]) AS u(id, req)
       RETURNING 1)
     SELECT now() AS started, (SELECT count(*) FROM ins) AS n`,
    [org, ids, requests],
  );
  await db.query('SELECT pg_notify($1, $2)', [CHECKS_CHANNEL, '']);
  for (;;) {
    const open = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".checks WHERE id = ANY($1) AND status = 'IN_PROGRESS'`,
      [ids],
    );
    if (open.rows[0]!.n === 0) break;
    if (performance.now() - t0 > 300_000) throw new Error('backlog not drained in 5 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
  // The database's own clock: from the commit of the backlog to the last completion.
  const span = await db.query<{ s: number; bad: number }>(
    `SELECT extract(epoch FROM max(completed_at) - $2::timestamptz)::float8 AS s,
            count(*) FILTER (WHERE outcome_code <> 'COMPLETED')::int AS bad
       FROM "${schema}".checks WHERE id = ANY($1)`,
    [ids, rows[0]!.started],
  );
  const seconds = span.rows[0]!.s;
  if (span.rows[0]!.bad > 0) throw new Error(`${span.rows[0]!.bad} checks did not complete`);
  const workerCpu = procs.reduce((sum, p, i) => sum + cpuSeconds(p.child.pid!) - workerCpu0[i]!, 0);
  const postgresCpu = cpuSince(cluster0);
  const backends1 = await serviceBackends(db, schema);
  let serviceBackendsCpu = 0;
  for (const [pid, now] of backends1) serviceBackendsCpu += now - (backends0.get(pid) ?? 0);
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => new Promise((r) => p.child.once('exit', r))));
  rmSync(dataDir, { recursive: true, force: true });
  return {
    workers,
    seconds,
    perSecond: CHECKS / seconds,
    workerCpu,
    postgresCpu,
    serviceBackendsCpu,
  };
}

/** CPU seconds so far of each PostgreSQL backend serving this schema. */
async function serviceBackends(db: pg.Client, schema: string): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [`elig:${schema}`],
  );
  return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
}

export async function run(): Promise<void> {
  const db = new pg.Client({ connectionString: URL_, connectionTimeoutMillis: 2000 });
  try {
    await db.connect();
  } catch {
    console.log(`\nbench/scale: no PostgreSQL at ${URL_}; skipped`);
    return;
  }
  const schema = `bench_scale_${process.pid}`;
  try {
    const store = await openStore({ databaseUrl: URL_, databaseSchema: schema, dataDir: tmpdir() });
    const org = await createOrganization(store.db, 'Bench Clinic');
    await store.close();

    const results: RunResult[] = [];
    for (const workers of [1, 2]) results.push(await drain(db, schema, org.id, workers));

    const [one, two] = results as [RunResult, RunResult];
    console.log(
      `\nbench/scale on PostgreSQL: ${CHECKS} pre-inserted checks drained by N \`elig worker\` processes ` +
        `(sandbox latency 0, WORKER_CONCURRENCY 32; ${cpus().length} cores; load average before ${loadavg()[0]!.toFixed(2)})`,
    );
    console.log(
      'workers | seconds | checks/s | worker CPU s (cores) | PostgreSQL CPU s (cores) | of which this schema',
    );
    for (const r of results) {
      console.log(
        `${String(r.workers).padStart(7)} | ${r.seconds.toFixed(2).padStart(7)} | ${r.perSecond.toFixed(0).padStart(8)} | ` +
          `${r.workerCpu.toFixed(1)} (${(r.workerCpu / r.seconds).toFixed(2)}) | ` +
          `${r.postgresCpu.toFixed(1)} (${(r.postgresCpu / r.seconds).toFixed(2)}) | ${r.serviceBackendsCpu.toFixed(1)}`,
      );
    }
    console.log(
      `ratio 2 workers / 1 worker: ${(two.perSecond / one.perSecond).toFixed(2)}x (target >= 1.6 on 2 cores)`,
    );
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await db.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
