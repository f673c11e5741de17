/**
 * bench/submit-status: POST submit and GET status throughput and latency at 64 connections, each as a
 * ratio against a bare Fastify route doing the same single INSERT / SELECT on the same database, in the
 * same run. On PGlite, and on PostgreSQL when one answers at BENCH_DATABASE_URL (default the local one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { uuidv7 } from '../src/ids.ts';
import { startService } from '../src/server.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const CONNECTIONS = 64;

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(opts: autocannon.Options): Promise<Measure> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Service and baseline measured in alternation, median of each: a burst of background load then hits
 * both sides alike instead of skewing the ratio.
 */
async function compare(service: autocannon.Options, bare: autocannon.Options): Promise<[Measure, Measure]> {
  const ours: Measure[] = [];
  const theirs: Measure[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(await load(service));
    theirs.push(await load(bare));
  }
  const median = (ms: Measure[]) => [...ms].sort((a, b) => a.rps - b.rps)[Math.floor(ms.length / 2)]!;
  return [median(ours), median(theirs)];
}

const REQUEST = JSON.stringify({
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
});

async function runOn(label: string, env: Record<string, string>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  const config = loadConfig({
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SUBMIT: '1000000',
    RATE_LIMIT_STATUS: '1000000',
    ...env,
  });
  const service = await startService(config, { roles: { api: true, worker: false } });
  const db = service.store.db;
  const org = service.bootstrap!.organizationId;
  const headers = { authorization: `Key ${service.bootstrap!.apiKey}`, 'content-type': 'application/json' };

  // The baseline: the same single statements behind a bare route, no auth, no validation.
  const bare = Fastify();
  bare.post('/bare', async (req, reply) => {
    const id = uuidv7();
    const body = req.body as { tradingPartnerServiceId: string };
    await db.query(
      `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request) VALUES ($1, $2, 'IN_PROGRESS', $3, $4)`,
      [id, org, body.tradingPartnerServiceId, body],
    );
    return reply.code(202).send({ id, status: 'IN_PROGRESS' });
  });
  bare.get('/bare/:id', async (req, reply) => {
    const { rows } = await db.query<{ status: string; result: string | null }>(
      'SELECT status, result FROM checks WHERE id = $1 AND organization_id = $2',
      [(req.params as { id: string }).id, org],
    );
    return reply.type('application/json').send(rows[0]?.result ?? `{"status":"${rows[0]?.status}"}`);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  const first = await fetch(`${service.url}/api/eligibility`, {
    method: 'POST',
    headers,
    body: REQUEST,
  }).then((r) => r.json() as Promise<{ id: string }>);
  // A completed-size body makes the SELECT realistic.
  await db.query("UPDATE checks SET status = 'COMPLETED', result = $2 WHERE id = $1", [
    first.id,
    JSON.stringify({ id: first.id, status: 'COMPLETED', pad: 'x'.repeat(8000) }),
  ]);

  const rows: [string, Measure, Measure][] = [];
  rows.push([
    'submit',
    ...(await compare(
      { url: `${service.url}/api/eligibility`, method: 'POST', headers, body: REQUEST },
      {
        url: `${bareUrl}/bare`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: REQUEST,
      },
    )),
  ]);
  rows.push([
    'status',
    ...(await compare(
      { url: `${service.url}/api/eligibility/${first.id}/status`, headers },
      { url: `${bareUrl}/bare/${first.id}` },
    )),
  ]);

  console.log(
    `\nbench/submit-status on ${label} (${CONNECTIONS} connections; service and bare alternate ${ROUNDS} times, ` +
      `${DURATION_S}s each, median shown)`,
  );
  console.log(
    'operation | service req/s | bare req/s | ratio | service p50/p99 ms | bare p50/p99 ms | errors',
  );
  for (const [name, svc, base] of rows) {
    console.log(
      `${name.padEnd(9)} | ${svc.rps.toFixed(0).padStart(13)} | ${base.rps.toFixed(0).padStart(10)} | ${(svc.rps / base.rps).toFixed(2)}x | ${svc.p50}/${svc.p99} | ${base.p50}/${base.p99} | ${svc.errors + base.errors}`,
    );
  }
  await bare.close();
  await service.stop();
  if (env.DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${env.DATABASE_SCHEMA}" CASCADE`);
    await c.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
}

export async function run(): Promise<void> {
  await runOn('PGlite', {});
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
  } catch {
    console.log(`\nbench/submit-status: no PostgreSQL at ${url}; skipped the PostgreSQL run`);
    return;
  }
  await runOn('PostgreSQL', { DATABASE_URL: url, DATABASE_SCHEMA: `bench_${process.pid}` });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
