/**
 * bench/check-profile: where a check's time goes, per check, on this tree. Not a pass/fail bench: it prints
 * the statements one check costs (by kind, counted on the PostgreSQL wire) and, with a CPU profile, the
 * top costs in microseconds of CPU per check. Use it before and after a change to the check path, next to
 * `npm run bench -- e2e` (which compares checks/s and CPU with a baseline commit).
 *
 *   npm run bench -- check-profile                       statements per check (PostgreSQL)
 *   BENCH_PROFILE=1 npm run bench -- check-profile       and a CPU profile: the top 15 functions by self time
 *   BENCH_PROFILE_STORE=pglite ...                       the embedded store (no statement counts)
 *   BENCH_CHECKS=2000 (default), BENCH_CONCURRENCY=32 (default)
 *
 * The service runs in this process (API, worker and webhook dispatcher, a webhook configured to a local
 * receiver, so deliveries count), the sandbox answers at once, and clients submit and poll over loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { type Service, startService } from '../src/server.ts';
import { runAdminOp } from '../src/tenancy/admin-ops.ts';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STORE = process.env.BENCH_PROFILE_STORE === 'pglite' ? 'pglite' : 'postgres';
const PROFILE = process.env.BENCH_PROFILE === '1';

const REQUEST = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
  encounter: { serviceTypeCodes: ['30'] },
};

/** Statements seen on the wire, by their first words (no parameters: no PHI). */
const statements = new Map<string, number>();
let counting = false;
function countStatements(): void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (counting) {
      const first = args[0];
      const text = typeof first === 'string' ? first : (first as { text?: string })?.text;
      if (text) {
        const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
        statements.set(key, (statements.get(key) ?? 0) + 1);
      }
    }
    return original.apply(this, args);
  };
}

async function receiver(): Promise<{ url: string; deliveries: () => number; close(): void }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, deliveries: () => n, close: () => server.close() };
}

async function load(url: string, key: string): Promise<number> {
  const headers = { authorization: `Key ${key}`, 'content-type': 'application/json' };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CHECKS) {
        const res = await fetch(`${url}/api/eligibility`, {
          method: 'POST',
          headers,
          body: JSON.stringify(REQUEST),
        });
        const { id } = (await res.json()) as { id: string };
        for (;;) {
          const r = await fetch(`${url}/api/eligibility/${id}/status`, { headers });
          const body = (await r.json()) as { status: string };
          if (body.status !== 'IN_PROGRESS') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time per function (µs per check), top `n`. */
function topCosts(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, n: number) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const file = frame.url.replace(/^.*\/(node_modules\/)?/, (m) =>
      m.includes('node_modules') ? 'nm:' : '',
    );
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...self.entries()]
    .filter(([key]) => !key.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => `${(us / CHECKS).toFixed(1).padStart(8)} µs  ${key}`);
}

export async function run(): Promise<void> {
  if (STORE === 'postgres') countStatements();
  const dir = mkdtempSync(join(tmpdir(), 'elig-bench-profile-'));
  const hook = await receiver();
  const vars = {
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
    SANDBOX_LATENCY_MS: '0',
    // Counting, not timing: a loaded machine must not turn slow statements into 503s and retries.
    DB_REQUEST_BUDGET_MS: '60000',
    RATE_LIMIT_SUBMIT: '100000',
    RATE_LIMIT_SUBMIT_PER_ORGANIZATION: '100000',
    RATE_LIMIT_STATUS: '100000',
    ELIG_ALLOW_PRIVATE_WEBHOOKS: 'true',
    ...(STORE === 'postgres'
      ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: `bench_profile_${process.pid}` }
      : {}),
  };
  let service: Service | undefined;
  const session = new Session();
  try {
    service = await startService(loadConfig(vars));
    const org = service.bootstrap!.organizationId;
    await runAdminOp(
      { db: service.store.db, keys: service.keys, box: service.box, allowPrivateWebhooks: true },
      'webhook.set',
      { org, url: hook.url, generateSecret: true },
    );
    const url = service.url!;
    if (PROFILE) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    counting = true;
    const cpu = process.cpuUsage();
    const seconds = await load(url, service.bootstrap!.apiKey);
    const used = process.cpuUsage(cpu);
    counting = false;
    const label = STORE === 'postgres' ? 'PostgreSQL' : 'PGlite';
    console.log(
      `bench/check-profile ${label}: ${CHECKS} checks at ${CONCURRENCY} concurrent in ${seconds.toFixed(1)} s = ${(CHECKS / seconds).toFixed(0)} checks/s; ` +
        `CPU of this process (service and clients) ${((used.user + used.system) / 1000 / CHECKS).toFixed(2)} ms per check; webhook deliveries so far ${hook.deliveries()}`,
    );
    if (STORE === 'postgres') {
      const total = [...statements.values()].reduce((a, b) => a + b, 0);
      console.log(
        `bench/check-profile ${label}: ${(total / CHECKS).toFixed(2)} statements per check, by kind:`,
      );
      for (const [text, n] of [...statements.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
        console.log(`${(n / CHECKS).toFixed(2).padStart(8)}  ${text}`);
      }
    }
    if (PROFILE) {
      const { profile } = await session.post('Profiler.stop');
      console.log(`bench/check-profile ${label}: top CPU costs (self time, µs per check):`);
      for (const line of topCosts(profile as never, 15)) console.log(line);
    }
  } finally {
    session.disconnect();
    await service?.stop();
    hook.close();
    rmSync(dir, { recursive: true, force: true });
    if (STORE === 'postgres') {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS bench_profile_${process.pid} CASCADE`);
      await client.end();
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
