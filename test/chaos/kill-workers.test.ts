/**
 * kill -9 under load: two `elig worker` child processes on one PostgreSQL schema, 300 checks submitted in
 * bursts while a random worker is killed with SIGKILL 20 times (and restarted each time). Half the kills
 * are aimed: they wait until the victim holds a lease on a check or a webhook event, so they land in the
 * middle of a payer call, a finishing transaction or a webhook send.
 *
 * What must hold afterwards:
 * - every accepted check reaches its right final state (COMPLETED, or FAILED with AAA 75) and that state is
 *   written exactly once: a trigger in the test's schema records every change of status/result/completed_at;
 * - exactly one webhook event per check, every one delivered and recorded with one attempt;
 * - the receiver saw each event id at least once; a second receipt of the same id happens only when a
 *   worker was killed between sending and recording (at-least-once), never a second event for a check.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setWebhookSecret, setWebhookUrl } from '../../src/webhooks/settings.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { eventually } from '../helpers/eventually.ts';
import { type Received, Receiver } from '../helpers/receiver.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';
import { type EligProcess, MEMBERS, NEEDS_PG, PG_URL, sleep, spawnElig, UNKNOWN_MEMBER } from './procs.ts';

const TOTAL = 300;
const KILLS = 20;
const BURST = TOTAL / KILLS;
/** The whole test, and the part of it the kills may take; the rest drains abandoned leases. */
const BUDGET_MS = 180_000;
const KILL_PHASE_MS = 100_000;
const SECRET_KEY = randomBytes(32).toString('base64');

let svc: TestService;
let receiver: Receiver;
let webhookSecret: string;
let dataDir: string;

before(async () => {
  if (NEEDS_PG) return;
  svc = await startTestService({ roles: { api: true, worker: false }, config: { secretKey: SECRET_KEY } });
  dataDir = mkdtempSync(join(tmpdir(), 'elig-chaos-'));
  receiver = await new Receiver().start();
  const db = svc.service.store.db;
  assert.ok((await setWebhookUrl(db, svc.organizationId, receiver.url, { allowPrivate: true })).ok);
  const secret = await setWebhookSecret(db, svc.service.box, svc.organizationId, { generate: true });
  assert.ok(secret.ok);
  webhookSecret = secret.value!;
  // Every write of a check's final state, recorded by the database itself.
  const s = `"${svc.config.databaseSchema}"`;
  await db.query(`CREATE TABLE ${s}.chaos_audit (check_id text, old_status text, new_status text)`);
  await db.query(
    `CREATE FUNCTION ${s}.chaos_audit_fn() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN INSERT INTO ${s}.chaos_audit VALUES (NEW.id, OLD.status, NEW.status); RETURN NEW; END $$`,
  );
  await db.query(
    `CREATE TRIGGER chaos_audit_trg AFTER UPDATE ON ${s}.checks FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.result IS DISTINCT FROM NEW.result
            OR OLD.completed_at IS DISTINCT FROM NEW.completed_at)
      EXECUTE FUNCTION ${s}.chaos_audit_fn()`,
  );
});

after(async () => {
  if (NEEDS_PG) return;
  await svc.stop();
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function startWorker(): EligProcess {
  return spawnElig(['worker'], {
    DATABASE_URL: PG_URL!,
    DATABASE_SCHEMA: svc.config.databaseSchema,
    DATA_DIR: dataDir,
    ELIG_ENV: 'test',
    ELIG_SECRET_KEY: SECRET_KEY,
    ELIG_ALLOW_PRIVATE_WEBHOOKS: '1',
    SANDBOX_LATENCY_MS: '20',
    LEASE_MS: '3000',
    PAYER_TIMEOUT_MS: '1000',
    WORKER_POLL_MS: '200',
    // Kills must not turn into SH02 failures: the outcome of every check is asserted exactly.
    CHECK_MAX_ATTEMPTS: '100',
    CHECK_RETRY_BASE_MS: '50',
    LOG_LEVEL: 'info',
  });
}

interface Kill {
  at: number;
  pid: number;
  aimed: boolean;
  checksHeld: number;
  eventsHeld: number;
}

test('kill -9 of random workers: every check finishes once, every event is delivered', {
  skip: NEEDS_PG,
  timeout: BUDGET_MS + 20_000,
}, async () => {
  const started = Date.now();
  const db = svc.service.store.db;
  const api = client(svc.url, svc.apiKey);
  const expected = new Map<string, string>();
  const everyProcess: EligProcess[] = [];
  const spawnTracked = () => {
    const p = startWorker();
    everyProcess.push(p);
    return p;
  };
  const workers = [spawnTracked(), spawnTracked()];
  await Promise.all(workers.map((w) => w.ready));

  let submitted = 0;
  const submitBurst = async () => {
    const burst = Array.from({ length: BURST }, () => {
      const n = submitted++;
      const m = n % 20 === 7 ? UNKNOWN_MEMBER : MEMBERS[n % MEMBERS.length]!;
      return api.post('/api/eligibility', sandboxRequest(m.member)).then((res) => {
        assert.equal(res.status, 202, `submit answered ${res.status}`);
        expected.set(res.body.id, m.outcome);
      });
    });
    await Promise.all(burst);
  };
  /** Leases each worker process holds right now (workers are told apart by the pid in their id). */
  const leasesHeld = async () => {
    const { rows } = await db.query<{ pid: string; checks: number; events: number }>(
      `SELECT split_part(locked_by, ':', 2) AS pid, sum(c)::int AS checks, sum(e)::int AS events FROM (
         SELECT locked_by, 1 AS c, 0 AS e FROM checks
          WHERE status = 'IN_PROGRESS' AND locked_until > now()
         UNION ALL
         SELECT locked_by, 0, 1 FROM webhook_events WHERE state = 'pending' AND locked_until > now()) l
        GROUP BY 1`,
    );
    return new Map(rows.map((r) => [Number(r.pid), { checks: r.checks, events: r.events }]));
  };

  const kills: Kill[] = [];
  for (let i = 0; i < KILLS; i++) {
    const aimed = i % 2 === 0;
    const burst = submitBurst();
    let victim = workers[Math.floor(Math.random() * workers.length)]!;
    let held = { checks: 0, events: 0 };
    if (aimed) {
      // Wait until a worker holds a lease, then kill that one at once. A restarted worker needs seconds
      // of CPU to boot (more on a busy machine) and both may be booting, so wait as long as the kill
      // phase allows.
      // When the kill phase runs out first, the random victim is killed all the same.
      const holder = await eventually(
        async () => {
          const leases = await leasesHeld();
          const w = workers.find((w) => leases.has(w.pid));
          return w && { worker: w, held: leases.get(w.pid)! };
        },
        { timeoutMs: started + KILL_PHASE_MS - Date.now(), intervalMs: 2, what: 'a worker holding a lease' },
      ).catch(() => undefined);
      if (holder) {
        victim = holder.worker;
        held = holder.held;
      }
    } else {
      await sleep(Math.random() * 1500);
      held = (await leasesHeld()).get(victim.pid) ?? held;
    }
    victim.child.kill('SIGKILL');
    kills.push({ at: Date.now(), pid: victim.pid, aimed, checksHeld: held.checks, eventsHeld: held.events });
    await victim.exited;
    workers[workers.indexOf(victim)] = spawnTracked();
    await burst;
  }
  const killPhaseMs = Date.now() - started;
  assert.equal(expected.size, TOTAL, 'every submit was accepted');

  // Drain: abandoned leases expire (checks after LEASE_MS, webhook events after the dispatcher's 60 s).
  await eventually(
    async () => {
      const { rows } = await db.query<{ open: number; events: number; undelivered: number }>(
        `SELECT (SELECT count(*)::int FROM checks WHERE status = 'IN_PROGRESS') AS open,
                (SELECT count(*)::int FROM webhook_events) AS events,
                (SELECT count(*)::int FROM webhook_events WHERE state <> 'delivered') AS undelivered`,
      );
      const r = rows[0]!;
      if (r.open === 0 && r.events === TOTAL && r.undelivered === 0) return true;
      throw new Error(`open checks ${r.open}, events ${r.events}, undelivered ${r.undelivered}`);
    },
    {
      timeoutMs: Math.max(1000, started + BUDGET_MS - Date.now()),
      intervalMs: 250,
      what: 'all checks finished and all events delivered',
    },
  );
  const drainedMs = Date.now() - started;
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  // Every event is delivered, so none can be claimed again; a send cut short by a kill was the last thing
  // its process did. Once the receiver holds no connection, every request that reached it is counted.
  await receiver.drained();

  // 1. Every accepted check is final, with the right outcome, written exactly once.
  const { rows: checks } = await db.query<{
    id: string;
    status: string;
    outcome_code: string;
    completed_at: Date | null;
    result: string;
    attempts: number;
  }>('SELECT id, status, outcome_code, completed_at, result, attempts FROM checks');
  assert.equal(checks.length, TOTAL);
  for (const c of checks) {
    const want = expected.get(c.id);
    assert.ok(want, 'only accepted checks exist');
    assert.equal(c.outcome_code, want, `check outcome (${c.status})`);
    assert.equal(c.status, want === 'COMPLETED' ? 'COMPLETED' : 'FAILED');
    assert.ok(c.completed_at, 'completed_at is set');
  }
  const { rows: audit } = await db.query<{ check_id: string; old_status: string; new_status: string }>(
    'SELECT check_id, old_status, new_status FROM chaos_audit',
  );
  const writes = new Map<string, number>();
  for (const a of audit) {
    assert.equal(a.old_status, 'IN_PROGRESS', 'a final state is never overwritten');
    writes.set(a.check_id, (writes.get(a.check_id) ?? 0) + 1);
  }
  assert.equal(writes.size, TOTAL);
  assert.deepEqual(
    [...writes.values()].filter((n) => n !== 1),
    [],
    'each final state written once',
  );

  // 2. One event per check, delivered, one recorded attempt, body = the check's result.
  const { rows: events } = await db.query<{
    id: string;
    check_id: string;
    body: string;
    state: string;
    claims: number;
    recorded: number;
  }>(
    `SELECT e.id, e.check_id, e.body, e.state, e.attempts AS claims,
            (SELECT count(*)::int FROM webhook_attempts a WHERE a.event_id = e.id) AS recorded
       FROM webhook_events e`,
  );
  assert.equal(events.length, TOTAL);
  assert.equal(new Set(events.map((e) => e.check_id)).size, TOTAL, 'one event per check');
  const resultOf = new Map(checks.map((c) => [c.id, c.result]));
  for (const e of events) {
    assert.equal(e.state, 'delivered');
    assert.equal(e.recorded, 1, 'a delivered event has exactly one recorded attempt');
    assert.equal(e.body, resultOf.get(e.check_id), 'the event carries the final result');
  }

  // 3. The receiver: every event id, signed, body of its event; repeats only around a kill.
  const eventById = new Map(events.map((e) => [e.id, e]));
  const byId = new Map<string, Received[]>();
  for (const r of receiver.received) {
    const id = String(r.headers['x-webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), r]);
    const event = eventById.get(id);
    assert.ok(event, 'the receiver only sees known event ids');
    assert.equal(r.body, event.body);
    assert.deepEqual(
      verifyWebhook({
        secret: webhookSecret,
        timestamp: String(r.headers['x-webhook-timestamp']),
        signature: String(r.headers['x-webhook-signature']),
        body: r.body,
        toleranceSeconds: 3600,
      }),
      { ok: true },
    );
  }
  assert.equal(byId.size, TOTAL, 'distinct x-webhook-id = number of checks');
  const bodiesByCheck = new Set(receiver.received.map((r) => JSON.parse(r.body).id));
  assert.equal(bodiesByCheck.size, TOTAL, 'every check was announced');
  // A repeat needs a new claim of the event: the dispatcher sends once per claim, and a claim is only
  // taken over when the worker holding it died before recording its attempt. One kill may cut several
  // sends short (the dispatcher sends up to 16 at once), so repeats are bounded per event, not per kill.
  let repeats = 0;
  for (const [id, receipts] of byId) {
    const claims = eventById.get(id)!.claims;
    assert.ok(
      receipts.length <= claims,
      `event sent at most once per claim (${receipts.length} > ${claims})`,
    );
    for (const r of receipts.slice(0, -1)) {
      repeats++;
      // The sender was killed after the receiver answered and before it could record the attempt.
      const kill = kills.find((k) => k.at >= r.at - 1000 && k.at <= r.at + 2000);
      assert.ok(kill, 'a repeated delivery of the same id only follows a kill');
    }
  }

  // The kills really interrupted work: otherwise this test would prove nothing.
  const interrupted = kills.filter((k) => k.checksHeld + k.eventsHeld > 0);
  assert.ok(interrupted.length >= 1, 'at least one kill hit leased work');

  const logs = everyProcess.flatMap((p) => p.logs());
  const leaseLost = logs.filter((l) => String(l.msg).startsWith('lease lost')).length;
  const maxAttempts = Math.max(...checks.map((c) => c.attempts));
  const retakenChecks = checks.filter((c) => c.attempts > 1).length;
  const maxClaims = Math.max(...events.map((e) => e.claims));
  console.log(
    [
      `kill-workers: ${TOTAL} checks, ${kills.length} kills (${kills.filter((k) => k.aimed).length} aimed) in ${killPhaseMs} ms; drained at ${drainedMs} ms`,
      `  kills holding leases: ${interrupted.length} (checks held ${kills.reduce((s, k) => s + k.checksHeld, 0)}, events held ${kills.reduce((s, k) => s + k.eventsHeld, 0)})`,
      `  checks taken over after a kill: ${retakenChecks} (max attempts ${maxAttempts}); max claims of one event ${maxClaims}`,
      `  deliveries ${receiver.received.length}, distinct ids ${byId.size}, repeats of the same id ${repeats}; 'lease lost' warnings ${leaseLost}`,
    ].join('\n'),
  );
});
