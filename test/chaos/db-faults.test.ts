/**
 * PostgreSQL failing in each way it can, under a service started in this process (API and worker) with a
 * 1.5 s database budget (DB_REQUEST_BUDGET_MS):
 * - through a fault-injecting TCP proxy (test/helpers/fault-proxy.ts): connections refused, reset, and
 *   stalled (connected, no answer: the case that used to wait 30 s and answer 500);
 * - on the real server, in this file's schema: a trigger that raises 53100 (disk full) or 53200 (out of
 *   memory) on inserts into `checks` as PostgreSQL does when a write needs space it cannot get (the shared
 *   cluster's disk is not ours to fill), and one that sleeps (a statement that outlasts the budget);
 * - read-only sessions (25006, as after a failover to a standby) for a role of its own.
 * Each time: submit and status answer 503 InternalFailureException with Retry-After within the budget
 * (plus 1 s slack), /readyz is not ready with a reason, and once the fault clears everything works again
 * without a restart. Needs DATABASE_URL.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { type FaultMode, type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts';
import {
  assertQuietLogs,
  assertRecovered,
  assertUnavailable,
  BUDGET_MS,
  notReady,
  SLACK_MS,
  summary,
  timedApi,
} from '../helpers/outage.ts';
import { sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';
import { MEMBERS, NEEDS_PG, PG_URL, withPg } from './procs.ts';

let proxy: FaultProxy;
let svc: TestService;
let api: ReturnType<typeof timedApi>;
let accepted: string;
const started = performance.now();

before(async () => {
  if (NEEDS_PG) return;
  proxy = await startFaultProxy();
  svc = await startTestService({
    config: { databaseUrl: proxy.urlFor(PG_URL!), dbRequestBudgetMs: BUDGET_MS },
  });
  api = timedApi(svc.url, svc.apiKey);
  const r = await api.submit(sandboxRequest(MEMBERS[0].member));
  assert.equal(r.status, 202);
  accepted = r.body.id;
});

after(async () => {
  if (NEEDS_PG) return;
  await proxy.setMode('pass');
  await svc.stop();
  await proxy.close();
});

const PROXY_FAULTS: { mode: FaultMode; what: string; ready: string }[] = [
  { mode: 'refuse', what: 'refuses connections', ready: 'Database not reachable.' },
  { mode: 'reset', what: 'resets connections', ready: 'Database not reachable.' },
  { mode: 'stall', what: 'stalls (connected, no answer)', ready: 'Database did not answer in time.' },
];

for (const { mode, what, ready: reason } of PROXY_FAULTS) {
  test(`PostgreSQL ${what}: 503 with Retry-After within the budget, /readyz not ready; recovers when it clears`, {
    skip: NEEDS_PG,
    timeout: 90_000,
  }, async () => {
    await proxy.setMode(mode);
    for (let i = 0; i < 3; i++) {
      assertUnavailable(await api.submit(sandboxRequest(MEMBERS[i]!.member)), `submit ${i} (${mode})`);
      assertUnavailable(await api.status(accepted), `status ${i} (${mode})`);
    }
    const ready = await notReady(api.ready);
    assertUnavailable(ready, `/readyz (${mode})`);
    assert.equal(ready.body.message, reason);

    await proxy.setMode('pass');
    await assertRecovered(api, accepted);
  });
}

async function withTrigger(body: string, fn: () => Promise<void>): Promise<void> {
  const schema = svc.config.databaseSchema;
  await withPg(async (c) => {
    await c.query(`CREATE OR REPLACE FUNCTION "${schema}".fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${body} RETURN NEW; END $$`);
    await c.query(
      `CREATE TRIGGER fault BEFORE INSERT ON "${schema}".checks FOR EACH ROW EXECUTE FUNCTION "${schema}".fault()`,
    );
  });
  try {
    await fn();
  } finally {
    await withPg((c) => c.query(`DROP TRIGGER IF EXISTS fault ON "${schema}".checks`));
  }
}

for (const [sqlstate, ready] of [
  ['53100', 'Database cannot write: disk full.'],
  ['53200', 'Database out of resources (memory, connections or disk).'],
] as const) {
  test(`PostgreSQL failing writes with ${sqlstate}: submits answer 503 within the budget, reads work, /readyz says why; recovers`, {
    skip: NEEDS_PG,
    timeout: 90_000,
  }, async () => {
    await withTrigger(
      `RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = '${sqlstate}';`,
      async () => {
        for (let i = 0; i < 3; i++) {
          assertUnavailable(
            await api.submit(sandboxRequest(MEMBERS[i]!.member)),
            `submit ${i} (${sqlstate})`,
          );
        }
        const status = await api.status(accepted);
        assert.equal(status.status, 200, 'reads need no new space');
        // The heartbeat rewrites its own row and may get through: readiness remembers the failed writes.
        const r = await notReady(api.ready);
        assertUnavailable(r, `/readyz (${sqlstate})`);
        assert.equal(r.body.message, ready);
      },
    );
    await assertRecovered(api, accepted);
  });
}

test('PostgreSQL slower than the budget: the submit answers 503 in time and the server cancels the statement', {
  skip: NEEDS_PG,
  timeout: 60_000,
}, async () => {
  const sleeping = () =>
    withPg(async (c) => {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = $1 AND state = 'active' AND query LIKE 'INSERT INTO checks%'`,
        [`elig:${svc.config.databaseSchema}`],
      );
      return rows[0]!.n;
    });
  await withTrigger('PERFORM pg_sleep(30);', async () => {
    assertUnavailable(await api.submit(sandboxRequest(MEMBERS[2].member)), 'a submit stuck in a slow insert');
    // statement_timeout = the budget: nothing is left running for a client that gave up.
    await eventually(async () => (await sleeping()) === 0, {
      what: 'the server to cancel the insert',
      timeoutMs: BUDGET_MS + SLACK_MS,
      intervalMs: 50,
    });
  });
  await assertRecovered(api, accepted);
});

test('PostgreSQL read-only (25006, as after a failover): 503 and /readyz not ready; recovers without a restart or a reconnect', {
  skip: NEEDS_PG,
  timeout: 120_000,
}, async () => {
  const role = `elig_ro_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const database = new URL(PG_URL!).pathname.slice(1);
  await withPg((c) =>
    c.query(`CREATE ROLE "${role}" LOGIN; GRANT CREATE ON DATABASE "${database}" TO "${role}"`),
  );
  const url = new URL(PG_URL!);
  url.username = role;
  let ro: TestService | undefined;
  try {
    ro = await startTestService({ config: { databaseUrl: url.toString(), dbRequestBudgetMs: BUDGET_MS } });
    const roApi = timedApi(ro.url, ro.apiKey);
    const first = await roApi.submit(sandboxRequest(MEMBERS[0].member));
    assert.equal(first.status, 202);

    await withPg(async (c) => {
      await c.query(`ALTER ROLE "${role}" SET default_transaction_read_only = on`);
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    });
    for (let i = 0; i < 3; i++) {
      assertUnavailable(await roApi.submit(sandboxRequest(MEMBERS[i]!.member)), `submit ${i} (read-only)`);
    }
    const r = await notReady(roApi.ready);
    assertUnavailable(r, '/readyz (read-only)');
    assert.equal(r.body.message, 'Database cannot write: read-only.');

    // No backend is terminated this time: each pooled session that answered 25006 was discarded, so the
    // pool opens writable ones by itself.
    await withPg((c) => c.query(`ALTER ROLE "${role}" RESET default_transaction_read_only`));
    await assertRecovered(roApi, first.body.id);
  } finally {
    // Writable again first, or stopping could not drop the test schema (and would hide a failure above).
    await withPg((c) => c.query(`ALTER ROLE "${role}" RESET default_transaction_read_only`));
    try {
      await ro?.stop();
    } finally {
      await withPg((c) => c.query(`DROP OWNED BY "${role}"; DROP ROLE "${role}"`));
    }
  }
});

test('during all this the worker logged each outage at most once per 30 s, and no PHI', {
  skip: NEEDS_PG,
}, () => {
  assertQuietLogs(
    svc.logs.lines.map((l) => JSON.parse(l)),
    performance.now() - started,
  );
  console.log(`db-faults (PostgreSQL): ${summary()}`);
});
