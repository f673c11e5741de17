/**
 * PostgreSQL connection loss under load: an `elig serve` child process (API and worker) on a fresh schema;
 * while clients submit and poll checks and the worker processes them, every backend of the service
 * (`application_name = 'elig:<schema>'`) is terminated with pg_terminate_backend, four times one-off and
 * then as a 3-second storm that also kills the reconnects. The cluster itself is never restarted (other
 * test files use it at the same time); if the service opens more connections than it ever should, the
 * sweeps stop early so that this test cannot exhaust the shared cluster's max_connections.
 *
 * Must hold, one test each: the process survives; no request hangs (each answers within 5 s) and every
 * failure is a 503 InternalFailureException with Retry-After (never a 500); the service recovers by
 * itself (/readyz 200, new checks picked up at once by notification rather than the slow polling
 * fallback) and no accepted check is lost; afterwards it holds one LISTEN connection and stops on SIGTERM.
 * The first test runs the chaos; the others judge what it recorded, and are skipped if the process died.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { client, sandboxRequest } from '../helpers/service.ts';
import {
  dropSchema,
  type EligProcess,
  freshSchema,
  MEMBERS,
  NEEDS_PG,
  PG_URL,
  sleep,
  spawnElig,
  withPg,
} from './procs.ts';

const POLL_MS = 5000;
/** Pool (10) + LISTEN (1) is the most a healthy process holds; beyond this the sweeps stop. */
const CONNECTION_CAP = 20;

const schema = freshSchema('connloss');
const appName = `elig:${schema}`;
let dataDir: string;
let serve: EligProcess;
let url: string;
let apiKey: string;

before(async () => {
  if (NEEDS_PG) return;
  dataDir = mkdtempSync(join(tmpdir(), 'elig-chaos-'));
  serve = spawnElig(['serve'], {
    DATABASE_URL: PG_URL!,
    DATABASE_SCHEMA: schema,
    DATA_DIR: dataDir,
    ELIG_ENV: 'test',
    PORT: '0',
    SANDBOX_LATENCY_MS: '50',
    PAYER_TIMEOUT_MS: '2000',
    LEASE_MS: '5000',
    // A long polling interval, so that only a working LISTEN connection makes new checks start at once.
    WORKER_POLL_MS: String(POLL_MS),
    RATE_LIMIT_SUBMIT: '100000',
    RATE_LIMIT_STATUS: '100000',
    LOG_LEVEL: 'warn',
  });
  await serve.ready;
  await eventually(() => /Test API key:\s+(\S+)/.test(serve.stdout), {
    timeoutMs: 5000,
    what: 'the first-start banner',
  });
  url = /API:\s+(http:\/\/\S+)\/api\/eligibility/.exec(serve.stdout)![1]!;
  apiKey = /Test API key:\s+(\S+)/.exec(serve.stdout)![1]!;
});

after(async () => {
  if (NEEDS_PG) return;
  if (serve.child.exitCode === null && serve.child.signalCode === null) {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  await dropSchema(schema);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  op: 'submit' | 'status';
  status: number;
  ms: number;
  code?: string;
  retryAfter?: string | null;
  error?: string;
}

async function connections(): Promise<{ total: number; listening: number }> {
  return withPg(async (c) => {
    const { rows } = await c.query<{ total: number; listening: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE query LIKE 'LISTEN%')::int AS listening
         FROM pg_stat_activity WHERE application_name = $1`,
      [appName],
    );
    return rows[0]!;
  });
}

async function terminateBackends(): Promise<number> {
  return withPg(async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
         FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
      [appName],
    );
    return rows[0]!.n;
  });
}

async function timed(op: Outcome['op'], fn: () => Promise<Response>): Promise<Outcome & { body?: any }> {
  const t0 = performance.now();
  try {
    const res = await fn();
    const text = await res.text();
    const ms = performance.now() - t0;
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {}
    return { op, status: res.status, ms, code: body?.code, retryAfter: res.headers.get('retry-after'), body };
  } catch (err) {
    return { op, status: 0, ms: performance.now() - t0, error: (err as Error).name };
  }
}

/** What the chaos run recorded, judged by the tests after it. */
const run = {
  done: false,
  crashed: '',
  sweeps: [] as number[],
  outcomes: [] as Outcome[],
  accepted: [] as string[],
  maxConnections: 0,
  cappedAt: -1,
};

test('the service process survives its PostgreSQL backends being terminated under load', {
  skip: NEEDS_PG,
  // Regression guard: a terminated backend of a checked-out client used to crash the process (fixed in src/store/db.ts).
  timeout: 60_000,
}, async () => {
  const headers = { authorization: `Key ${apiKey}`, 'content-type': 'application/json' };
  let running = true;
  serve.exited.then(() => {
    running = false;
  });
  const loop = async (n: number) => {
    let i = n;
    while (running) {
      const m = MEMBERS[i++ % MEMBERS.length]!;
      const submit = await timed('submit', () =>
        fetch(`${url}/api/eligibility`, {
          method: 'POST',
          headers,
          body: JSON.stringify(sandboxRequest(m.member)),
          signal: AbortSignal.timeout(15_000),
        }),
      );
      run.outcomes.push(submit);
      if (submit.status === 202) run.accepted.push(submit.body.id);
      const id = run.accepted[Math.floor(Math.random() * run.accepted.length)];
      if (id && running) {
        run.outcomes.push(
          await timed('status', () =>
            fetch(`${url}/api/eligibility/${id}/status`, { headers, signal: AbortSignal.timeout(15_000) }),
          ),
        );
      }
    }
  };
  const loops = Array.from({ length: 12 }, (_, n) => loop(n));

  /** One sweep, unless the service already holds more connections than it ever should. */
  const sweep = async () => {
    const { total } = await connections();
    run.maxConnections = Math.max(run.maxConnections, total);
    if (total > CONNECTION_CAP) {
      if (run.cappedAt < 0) run.cappedAt = run.sweeps.length;
      return false;
    }
    run.sweeps.push(await terminateBackends());
    return running;
  };
  await sleep(1000);
  for (let round = 0; round < 4 && running; round++) {
    await sweep();
    await sleep(1500);
  }
  // A storm: every reconnect is killed too, for 3 seconds.
  const stormEnd = Date.now() + 3000;
  while (running && Date.now() < stormEnd && (await sweep())) await sleep(50);
  await sleep(1500);
  const alive = running;
  running = false;
  await Promise.all(loops);
  run.done = true;
  if (!alive) {
    run.crashed = serve.stderr.split('\n').find((l) => /^\w*error: /i.test(l)) ?? 'exited';
  }
  assert.ok(run.sweeps[0]! > 0, 'the first sweep terminated backends');
  assert.equal(run.crashed, '', 'the service process is still running');
  assert.ok(run.sweeps.length >= 4, 'all four one-off sweeps ran');
});

function judged(t: { skip(message?: string): void }): boolean {
  assert.ok(run.done, 'the chaos run finished');
  if (run.crashed) t.skip(`the service process died during the chaos run (${run.crashed})`);
  return !run.crashed;
}

test('during the outage every request answers within 5 s, as a success or a 503 with Retry-After', {
  skip: NEEDS_PG,
}, (t) => {
  if (!judged(t)) return;
  const slow = run.outcomes.filter((o) => o.ms > 5000);
  assert.deepEqual(
    slow.map((o) => `${o.op} ${o.status} ${Math.round(o.ms)} ms`),
    [],
    'no request took longer than 5 s',
  );
  const bad = run.outcomes.filter(
    (o) =>
      !(o.op === 'submit' && o.status === 202) &&
      !(o.op === 'status' && o.status === 200) &&
      !(o.status === 503 && o.code === 'InternalFailureException' && o.retryAfter),
  );
  assert.deepEqual(
    bad.map((o) => `${o.op} ${o.status} ${o.code ?? o.error ?? ''}`),
    [],
    'only successes or 503 InternalFailureException with Retry-After',
  );
});

test('it recovers without a restart: /readyz, new checks on notification, no accepted check lost', {
  skip: NEEDS_PG,
  timeout: 90_000,
}, async (t) => {
  if (!judged(t)) return;
  await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, {
    timeoutMs: 10_000,
    intervalMs: 100,
    what: '/readyz 200',
  });
  // The first successful query cuts the LISTEN connection's reconnect backoff short (src/store/db.ts).
  const readyAt = Date.now();
  await eventually(async () => (await connections()).listening === 1, {
    timeoutMs: 3000,
    intervalMs: 50,
    what: 'the LISTEN connection to be back',
  });
  const listenBackMs = Date.now() - readyAt;
  const api = client(url, apiKey);
  const fresh: number[] = [];
  for (let i = 0; i < 3; i++) {
    await sleep(300); // let the worker go idle, waiting on LISTEN (or the 5 s poll)
    const t0 = Date.now();
    const res = await api.post('/api/eligibility', sandboxRequest(MEMBERS[0].member));
    assert.equal(res.status, 202);
    run.accepted.push(res.body.id);
    await eventually(
      async () => (await api.get(`/api/eligibility/${res.body.id}/status`)).body.status !== 'IN_PROGRESS',
      { timeoutMs: 15_000, what: 'a new check to finish' },
    );
    fresh.push(Date.now() - t0);
  }
  assert.ok(
    fresh.every((ms) => ms < POLL_MS / 2),
    `new checks start on notification, not on the ${POLL_MS} ms poll (took ${fresh.join(', ')} ms)`,
  );
  // Each accepted check finishes (interrupted ones after their lease expires).
  const counts = async () =>
    withPg(async (c) => {
      const { rows } = await c.query<{ outcome_code: string | null; n: number }>(
        `SELECT outcome_code, count(*)::int AS n FROM "${schema}".checks WHERE id = ANY($1) GROUP BY 1`,
        [run.accepted],
      );
      return rows;
    });
  await eventually(async () => (await counts()).every((r) => r.outcome_code !== null), {
    timeoutMs: 40_000,
    intervalMs: 250,
    what: 'every accepted check to finish',
  });
  assert.deepEqual(await counts(), [{ outcome_code: 'COMPLETED', n: run.accepted.length }]);

  const ms = run.outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const unavailable = run.outcomes.filter((o) => o.status === 503);
  console.log(
    [
      `connection-loss: ${run.sweeps.length} sweeps terminated ${run.sweeps.reduce((a, b) => a + b, 0)} backends; ${run.outcomes.length} requests`,
      `  accepted ${run.accepted.length} checks (all completed); 503 answers ${unavailable.length} (slowest ${Math.round(Math.max(0, ...unavailable.map((o) => o.ms)))} ms)`,
      `  request latency p99 ${Math.round(ms[Math.floor(ms.length * 0.99)]!)} ms, max ${Math.round(ms[ms.length - 1]!)} ms; new checks after recovery ${fresh.join(', ')} ms; LISTEN back ${listenBackMs} ms after /readyz`,
      `  service connections: max ${run.maxConnections} during the sweeps${run.cappedAt >= 0 ? ` (sweeps stopped at #${run.cappedAt}: over ${CONNECTION_CAP})` : ''}`,
    ].join('\n'),
  );
});

test('afterwards it holds one LISTEN connection and stops on SIGTERM', {
  skip: NEEDS_PG,
  // Regression guard: each lost LISTEN connection used to leak a client (fixed in src/store/db.ts).
  timeout: 30_000,
}, async (t) => {
  if (!judged(t)) return;
  assert.ok(
    run.maxConnections <= CONNECTION_CAP,
    `at most ${CONNECTION_CAP} connections at any time (saw ${run.maxConnections})`,
  );
  // Reconnects are scheduled 1 s after a loss: once the youngest LISTEN connection is older than that, a
  // second one opened by the same loss would be there too.
  await eventually(
    () =>
      withPg(async (c) => {
        const { rows } = await c.query<{ ms: number | null }>(
          `SELECT extract(epoch FROM now() - max(backend_start)) * 1000 AS ms
             FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
          [appName],
        );
        return Number(rows[0]?.ms ?? 0) > 1000;
      }),
    { timeoutMs: 15_000, intervalMs: 100, what: 'the LISTEN connection to outlive the reconnect delay' },
  );
  const now = await connections();
  assert.equal(now.listening, 1, `exactly one LISTEN connection (saw ${now.listening} of ${now.total})`);
  serve.child.kill('SIGTERM');
  const stopped = await Promise.race([serve.exited.then(() => true), sleep(15_000).then(() => false)]);
  assert.ok(stopped, 'the process exits within 15 s of SIGTERM (10 s grace for checks in flight)');
});
