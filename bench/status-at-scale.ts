/**
 * bench/status-at-scale: GET status p50/p99 when the checks table holds 1k rows, then again after
 * bulk-inserting up to 1M rows (spread over ten organizations, each a real completed result body), on
 * PostgreSQL. The 1k run is the baseline; the ratio 1M/1k shows whether the lookup stays an index probe.
 *
 *   node --import tsx bench/status-at-scale.ts   (BENCH_DATABASE_URL, default the local PostgreSQL)
 *   BENCH_STATUS_ROWS=1000000                     rows for the large run
 *   BENCH_DURATION_S=10                           load per measurement, after a 2 s warm-up
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/server.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';

const URL_ = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LARGE = Number(process.env.BENCH_STATUS_ROWS ?? 1_000_000);
const SMALL = 1_000;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 32;
const ORGS = 10;
const SAMPLE = 5_000;

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Inserts `count` completed checks round-robin over `orgs`, in one statement per 50k rows. */
async function grow(db: pg.Client, schema: string, orgs: string[], template: string, count: number) {
  const request = JSON.stringify({
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
    subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
  });
  for (let done = 0; done < count; done += 50_000) {
    const n = Math.min(50_000, count - done);
    // UUIDv7-shaped ids: a millisecond timestamp spread over the past year, then random bits.
    await db.query(
      `INSERT INTO "${schema}".checks
         (id, organization_id, status, trading_partner_service_id, request, result, outcome_code, created_at, completed_at)
       SELECT substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(h, 1, 3) || '-' ||
              substr('89ab', 1 + (get_byte(decode(substr(h, 4, 2), 'hex'), 0) % 4), 1) || substr(h, 6, 3) || '-' ||
              substr(h, 9, 12),
              ($1::text[])[1 + (i % cardinality($1::text[]))], 'COMPLETED', 'SANDBOX', $2::jsonb, $3, 'COMPLETED',
              created, created
         FROM (SELECT i, md5(random()::text || i) AS h,
                      now() - random() * interval '365 days' AS created
                 FROM generate_series(1, $4::int) AS i) s,
              LATERAL (SELECT lpad(to_hex((extract(epoch FROM created) * 1000)::bigint), 12, '0') AS t) ts`,
      [orgs, request, template, n],
    );
  }
  await db.query(`VACUUM ANALYZE "${schema}".checks`);
}

async function measure(url: string, key: string, ids: string[]): Promise<Measure> {
  let next = 0;
  const opts: autocannon.Options = {
    url,
    connections: CONNECTIONS,
    headers: { authorization: `Key ${key}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/api/eligibility/${ids[next++ % ids.length]}/status` }),
      },
    ],
  };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function sampleIds(db: pg.Client, schema: string, org: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM "${schema}".checks WHERE organization_id = $1 ORDER BY random() LIMIT ${SAMPLE}`,
    [org],
  );
  return rows.map((r) => r.id);
}

export async function run(): Promise<void> {
  const db = new pg.Client({ connectionString: URL_, connectionTimeoutMillis: 2000 });
  try {
    await db.connect();
  } catch {
    console.log(`\nbench/status-at-scale: no PostgreSQL at ${URL_}; skipped`);
    return;
  }
  const schema = `bench_status_${process.pid}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  const config = loadConfig({
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: URL_,
    DATABASE_SCHEMA: schema,
    SANDBOX_LATENCY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_STATUS: '1000000',
    // The bulk rows span a year; keep the retention purge out of the measurement.
    RETENTION_DAYS: '3650',
  });
  const service = await startService(config, { roles: { api: true, worker: true } });
  try {
    const key = service.bootstrap!.apiKey;
    const own = service.bootstrap!.organizationId;
    // One real completed check gives the stored body every bulk row carries.
    const submitted = await fetch(`${service.url}/api/eligibility`, {
      method: 'POST',
      headers: { authorization: `Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tradingPartnerServiceId: 'SANDBOX',
        provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
        subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
      }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    let template: string | null = null;
    for (let i = 0; i < 200 && !template; i++) {
      const { rows } = await db.query<{ result: string | null }>(
        `SELECT result FROM "${schema}".checks WHERE id = $1 AND status = 'COMPLETED'`,
        [submitted.id],
      );
      template = rows[0]?.result ?? null;
      if (!template) await new Promise((r) => setTimeout(r, 50));
    }
    if (!template) throw new Error('the template check did not complete');
    const orgs = [own];
    for (let i = 1; i < ORGS; i++) orgs.push((await createOrganization(service.store.db, `Other ${i}`)).id);

    await grow(db, schema, orgs, template, SMALL - 1);
    const small = await measure(service.url!, key, await sampleIds(db, schema, own));

    const t0 = performance.now();
    await grow(db, schema, orgs, template, LARGE - SMALL);
    const loadSeconds = (performance.now() - t0) / 1000;
    const size = await db.query<{ n: number; bytes: string }>(
      `SELECT count(*)::int AS n, pg_size_pretty(pg_total_relation_size('"${schema}".checks')) AS bytes
         FROM "${schema}".checks`,
    );
    const large = await measure(service.url!, key, await sampleIds(db, schema, own));

    console.log(
      `\nbench/status-at-scale on PostgreSQL (${CONNECTIONS} connections, ${DURATION_S}s after 2s warm-up, ` +
        `random ids of one organization out of ${ORGS}; ${cpus().length} cores shared with PostgreSQL)`,
    );
    console.log(
      `bulk-inserted ${(LARGE - SMALL).toLocaleString('en')} rows in ${loadSeconds.toFixed(0)}s; ` +
        `table now ${size.rows[0]!.n.toLocaleString('en')} rows, ${size.rows[0]!.bytes} with indexes and TOAST; ` +
        `body ${template.length} bytes`,
    );
    console.log('stored checks | req/s | p50 ms | p99 ms | errors');
    for (const [label, m] of [
      ['1k', small],
      [`${LARGE / 1_000_000}M`, large],
    ] as const) {
      console.log(
        `${label.padStart(13)} | ${m.rps.toFixed(0).padStart(5)} | ${String(m.p50).padStart(6)} | ${String(m.p99).padStart(6)} | ${m.errors}`,
      );
    }
    console.log(
      `ratio large/1k: p50 ${(large.p50 / small.p50).toFixed(2)}x, p99 ${(large.p99 / small.p99).toFixed(2)}x ` +
        `(target <= 1.5), throughput ${(large.rps / small.rps).toFixed(2)}x`,
    );
  } finally {
    await service.stop();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await db.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
