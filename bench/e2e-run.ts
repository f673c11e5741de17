/**
 * One measured run of bench/e2e: one tree's `elig serve` on a fresh store (its own PGlite directory, or a
 * fresh schema on PostgreSQL), an organization, an API key and (optionally) a webhook made with that tree's
 * own `elig org | key | webhook` commands, then N sandbox checks at C concurrent, each submitted and polled
 * to a final state. Measured from the first measured submit to the last final status (and, with a webhook,
 * the last delivery): checks/s completed, and the service process's CPU (utime + stime from /proc) per check.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BenchTree } from './e2e-tree.ts';

export interface RunOptions {
  checks: number;
  concurrency: number;
  /** Checks submitted and polled before the measured ones (JIT, caches, connection pools). */
  warmup: number;
  webhook: boolean;
  /** Milliseconds between two status reads of one check. */
  pollMs: number;
  /** A run that takes longer is stopped and reported as incomplete. */
  timeoutMs: number;
}

export interface RunResult {
  checksPerSecond: number;
  cpuMsPerCheck: number;
  pollsPerCheck: number;
  /** Submits answered 503 or 429 and sent again. */
  shed: number;
  failed: number;
  deliveries: number;
  incomplete: boolean;
}

export type Store = { name: 'PGlite' } | { name: 'PostgreSQL'; url: string };

const TICKS = 100; // USER_HZ on Linux
const FINAL = new Set(['COMPLETED', 'FAILED', 'ERROR', 'CANCELLED']);
const REQUEST = JSON.stringify({
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
});

/** utime + stime of a process and its live descendants, in milliseconds. */
export function cpuMs(pid: number): number {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const child of children ? children.split(' ') : []) total += cpuMs(Number(child));
  } catch {
    // gone
  }
  return total;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

function environment(tree: BenchTree, store: Store, dataDir: string, schema: string, port: number) {
  return {
    ...process.env,
    ELIG_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    ELIG_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    SANDBOX_LATENCY_MS: '0',
    ELIG_ALLOW_PRIVATE_WEBHOOKS: '1',
    RATE_LIMIT_SUBMIT: '1000000',
    RATE_LIMIT_SUBMIT_PER_ORGANIZATION: '1000000',
    RATE_LIMIT_STATUS: '1000000',
    ...(store.name === 'PostgreSQL' ? { DATABASE_URL: store.url, DATABASE_SCHEMA: schema } : {}),
    ...(tree.bundle ? {} : { ELIG_RUNTIME: 'tsx' }),
  };
}

/**
 * How to start the tree's `elig`: its bundle's `main` called directly (bin/elig.mjs would run the sources
 * through tsx instead as soon as a source file is newer than the bundle, e.g. while this tree is being
 * edited during a run), or bin/elig.mjs when the tree has no bundle.
 */
function eligCommand(tree: BenchTree, args: string[]): string[] {
  if (!tree.bundle) return ['bin/elig.mjs', ...args];
  const launcher =
    'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));';
  return ['--input-type=module', '-e', launcher, tree.bundle, ...args];
}

/** A loopback receiver that answers every delivery 200 and counts them. */
async function webhookReceiver(): Promise<{ server: Server; url: string; received: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hook`, received: () => count };
}

/** The first few kilobytes a process writes on stdout (the serve banner); the rest is read and dropped. */
function firstOutput(child: ChildProcess): () => string {
  let text = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    if (text.length < 4096) text += chunk;
  });
  return () => text;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function waitReady(url: string, service: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (service.exitCode !== null) throw new Error(`elig serve exited with ${service.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error('elig serve did not answer /healthz in time');
}

interface Lanes {
  polls: number;
  failed: number;
  done: number;
  /** Submits the service turned away (503 busy, 429) and that were sent again after a pause. */
  shed: number;
}

/**
 * One submit; a busy service (503, 429: the overload protection of newer trees) is asked again after its
 * Retry-After or 100 ms, so shedding costs time, as it would a client, instead of stopping the run.
 */
async function submit(
  url: string,
  headers: Record<string, string>,
  totals: Lanes,
  deadline: number,
): Promise<string | undefined> {
  while (Date.now() < deadline) {
    const answer = await fetch(`${url}/api/eligibility`, { method: 'POST', headers, body: REQUEST });
    const body = (await answer.json().catch(() => ({}))) as { id?: string };
    if (answer.status === 202 && body.id) return body.id;
    if (answer.status !== 503 && answer.status !== 429) throw new Error(`submit answered ${answer.status}`);
    totals.shed++;
    await sleep(Math.min(1000, Number(answer.headers.get('retry-after') ?? 0) * 1000 || 100));
  }
  return undefined;
}

/** `count` checks over `concurrency` lanes, each submitting one check and polling it to its end. */
async function drive(
  url: string,
  key: string,
  count: number,
  o: RunOptions,
  deadline: number,
): Promise<Lanes> {
  const headers = { authorization: `Key ${key}`, 'content-type': 'application/json' };
  const totals: Lanes = { polls: 0, failed: 0, done: 0, shed: 0 };
  let next = 0;
  const lane = async () => {
    while (next < count && Date.now() < deadline) {
      next++;
      const id = await submit(url, headers, totals, deadline);
      if (id === undefined) return;
      for (;;) {
        await sleep(o.pollMs);
        totals.polls++;
        const status = await fetch(`${url}/api/eligibility/${id}/status`, { headers });
        const { status: state } = (await status.json().catch(() => ({}))) as { status?: string };
        if (state && FINAL.has(state)) {
          if (state !== 'COMPLETED') totals.failed++;
          totals.done++;
          break;
        }
        if (Date.now() >= deadline) return;
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, lane));
  return totals;
}

function stopService(service: ChildProcess): Promise<void> {
  if (service.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const killer = setTimeout(() => service.kill('SIGKILL'), 15_000);
    service.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    service.kill('SIGTERM');
  });
}

export async function measureRun(tree: BenchTree, store: Store, o: RunOptions): Promise<RunResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-e2e-'));
  const schema = `bench_e2e_${process.pid}_${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const env = environment(tree, store, dataDir, schema, port);
  const elig = (args: string[]) =>
    execFileSync(process.execPath, eligCommand(tree, args), {
      cwd: tree.root,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  const receiver = o.webhook ? await webhookReceiver() : undefined;
  let service: ChildProcess | undefined;
  try {
    // Made before the service starts: on PGlite the CLI then opens the directory itself.
    const org = elig(['org', 'create', '--name', 'Bench Clinic']).split('\n').at(-1)!;
    const key = elig(['key', 'create', '--org', org, '--name', 'bench']).split('\n').at(-1)!;
    if (receiver) elig(['webhook', 'set', '--org', org, '--url', receiver.url, '--generate-secret']);
    service = spawn(process.execPath, eligCommand(tree, ['serve']), {
      cwd: tree.root,
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const banner = firstOutput(service);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + o.timeoutMs;
    await waitReady(url, service, deadline);
    await drive(url, key, o.warmup, o, deadline);
    while (receiver && receiver.received() < o.warmup && Date.now() < deadline) await sleep(20);
    const deliveredBefore = receiver?.received() ?? 0;
    const cpuBefore = cpuMs(service.pid!);
    const started = performance.now();
    const lanes = await drive(url, key, o.checks, o, deadline);
    while (receiver && receiver.received() - deliveredBefore < lanes.done && Date.now() < deadline)
      await sleep(5);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMs(service.pid!) - cpuBefore;
    const deliveries = (receiver?.received() ?? 0) - deliveredBefore;
    if (banner().includes('sources via tsx'))
      process.stderr.write(`bench/e2e: ${tree.label} ran from its sources through tsx, not its bundle\n`);
    return {
      checksPerSecond: lanes.done / seconds,
      cpuMsPerCheck: cpu / Math.max(1, lanes.done),
      pollsPerCheck: lanes.polls / Math.max(1, lanes.done),
      shed: lanes.shed,
      failed: lanes.failed,
      deliveries,
      incomplete: lanes.done < o.checks || (receiver !== undefined && deliveries < lanes.done),
    };
  } finally {
    if (service) await stopService(service);
    receiver?.server.close();
    if (store.name === 'PostgreSQL') await dropSchema(store.url, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
