/**
 * A clearinghouse account end to end, on both stores: one connection in PAYERS_FILE reaches 1,000 payers
 * of a fake clearinghouse that allows 5 requests at once (429 with Retry-After beyond). The connection's
 * account limit keeps the service under it; a misconfigured limit earns 429s that back the connection off
 * without failing checks or opening payer breakers; each payer is asked the way its profile says; a payer
 * fails over to a second connection when the first is down; reload and import change the directory
 * without a restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';
import {
  type ClearinghouseFake,
  clearinghousePayersFile,
  STRATEGY_FOR,
  startClearinghouseFake,
} from '../payers/fakes/clearinghouse.ts';

const JANE = { memberId: 'M100200300', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const env = { CH_KEY: 'ch-key-e2e-1', BACKUP_KEY: 'backup-key-e2e-2' };

let ch: ClearinghouseFake;
let backup: ClearinghouseFake;
let svc: TestService;
const dir = mkdtempSync(join(tmpdir(), 'elig-clearinghouse-'));
const file = join(dir, 'payers.json');

function payersFile(extra: Record<string, unknown>[] = []) {
  const doc = clearinghousePayersFile({
    url: ch.url,
    connectionName: 'clearinghouse',
    keyEnv: 'CH_KEY',
    payers: ch.payers,
    limits: { concurrency: 5 },
    payerStrategies: 'by-behaviour',
  });
  return {
    connections: {
      ...doc.connections,
      backup: {
        type: 'x12-json',
        url: backup.url,
        auth: { type: 'api-key', key: { env: 'BACKUP_KEY' } },
        limits: { concurrency: 5 },
      },
      // Its real account allows 2 at once, but the file says 6: the service learns from the 429s.
      misconfigured: {
        type: 'x12-json',
        url: backup.url,
        auth: { type: 'api-key', key: { env: 'BACKUP_KEY' } },
        limits: { concurrency: 6 },
      },
    },
    payers: [
      ...doc.payers,
      { id: 'FAILOVER', name: 'Failover Health', payerId: 'CH0001', connection: ['clearinghouse', 'backup'] },
      { id: 'THROTTLED', name: 'Throttled Health', payerId: 'CH0002', connection: 'misconfigured' },
      { id: 'BACKUPONLY', name: 'Backup Only Health', payerId: 'CH0003', connection: 'backup' },
      {
        id: 'NOELIG',
        name: 'Claims Only Health',
        payerId: 'CH0003',
        connection: 'clearinghouse',
        eligibility: false,
      },
      {
        id: 'ENROLL',
        name: 'Enrollment Health',
        payerId: 'CH0004',
        connection: 'clearinghouse',
        enrollment: 'required',
      },
      ...extra,
    ],
  };
}

before(async () => {
  ch = await startClearinghouseFake({ apiKey: env.CH_KEY, payers: 1_000, concurrency: 5, latencyMs: 20 });
  backup = await startClearinghouseFake({
    apiKey: env.BACKUP_KEY,
    payers: 10,
    concurrency: 2,
    latencyMs: 30,
  });
  writeFileSync(file, JSON.stringify(payersFile()));
  svc = await startTestService({
    config: { payersFile: file, payerBreakerFailures: 2, workerConcurrency: 16, payerTimeoutMs: 2_000 },
    secretEnv: env,
  });
});

after(async () => {
  await svc?.stop();
  await Promise.all([ch?.close(), backup?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const api = () => client(svc.url, svc.apiKey);

async function check(payer: string, codes?: string[]) {
  const res = await api().post('/api/eligibility', {
    ...sandboxRequest(JANE),
    tradingPartnerServiceId: payer,
    ...(codes ? { encounter: { serviceTypeCodes: codes } } : {}),
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return waitForResult(api(), res.body.id, 30_000);
}

test('60 checks across 60 payers of one connection stay within its 5 at once: no 429 from the clearinghouse', async () => {
  ch.resetStats();
  const payers = ch.payers.slice(100, 160).map((p) => p.id);
  const results = await Promise.all(payers.map((p) => check(p, ['30'])));
  for (const r of results) assert.equal(r.status, 'COMPLETED', JSON.stringify(r.errors));
  assert.equal(ch.stats.tooManyRequests, 0, 'the account limit was never exceeded');
  assert.ok(ch.stats.maxConcurrent <= 5, `at most 5 at once (saw ${ch.stats.maxConcurrent})`);
  assert.equal(results[0]!.meta.connection, 'clearinghouse');
});

test("a flood through one connection does not hold up another connection's checks", async () => {
  // The clearinghouse takes its 5 at once and answers none of them until released: the flood stays queued.
  const release = ch.hold();
  try {
    const flood = await Promise.all(
      ch.payers.slice(200, 260).map(async (p) => {
        const res = await api().post('/api/eligibility', {
          ...sandboxRequest(JANE),
          tradingPartnerServiceId: p.id,
          encounter: { serviceTypeCodes: ['30'] },
        });
        assert.equal(res.status, 202);
        return res.body.id as string;
      }),
    );
    // Submitted after the 60: the worker (16 at once) must still have room for it.
    const other = await check('BACKUPONLY', ['30']);
    assert.equal(other.status, 'COMPLETED', JSON.stringify(other.errors));
    assert.equal(other.meta.connection, 'backup');
    assert.equal(ch.stats.inFlight, 5, 'the flood is still held at the clearinghouse');
    // First come, first served would have claimed every one of the 60 before it.
    const { rows } = await svc.service.store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM checks WHERE id = ANY($1) AND attempts = 0',
      [flood],
    );
    assert.ok(rows[0]!.n >= 30, `most of the flood was never claimed before it (${rows[0]!.n} of 60)`);
    release();
    for (const id of flood) assert.equal((await waitForResult(api(), id, 30_000)).status, 'COMPLETED');
  } finally {
    release();
  }
});

test('each payer is asked the way its profile says, and gets the product service types from its own rows', async () => {
  for (const behaviour of ['repeat', 'first-repetition', 'first-eq', 'generic-only'] as const) {
    const payer = ch.payers.find((p) => p.behaviour === behaviour)!;
    const result = await check(payer.id);
    assert.equal(result.status, 'COMPLETED', `${behaviour}: ${JSON.stringify(result.errors)}`);
    const how = result.benefits.map(
      (b: { serviceType: string; confidence: { criteria: string[] } }) => b.confidence.criteria[0]!,
    );
    const direct = how.filter((c: string) => c.startsWith('service type matched directly')).length;
    // The five therapy and chiropractic entries come from the payer's own rows (the two nutrition entries
    // read 98, which this fake answers without nutrition text); a payer that answers only 30 gives none.
    assert.equal(
      direct,
      behaviour === 'generic-only' ? 0 : 5,
      `${behaviour} (${STRATEGY_FOR[behaviour]}): ${how.join('; ')}`,
    );
  }
});

test('a connection that answers 429 is backed off: checks wait and complete, none fails, no breaker opens', async () => {
  backup.resetStats();
  const results = await Promise.all(Array.from({ length: 12 }, () => check('THROTTLED', ['30'])));
  for (const r of results) assert.equal(r.status, 'COMPLETED', JSON.stringify(r.errors));
  assert.ok(backup.stats.tooManyRequests > 0, 'the misconfigured limit did earn 429s');
  assert.equal(svc.service.worker && breakerOf('THROTTLED'), 'closed');
  const lines = svc.logs.lines.filter((l) => l.includes('"outcome":"throttled"'));
  assert.ok(lines.length > 0, 'the throttled calls are logged as such');
});

function breakerOf(payer: string): string {
  const guard = (svc.service.worker as unknown as { opts: { guard: { state(p: string): string } } }).opts
    .guard;
  return guard.state(payer);
}

test('a payer whose first connection is down fails over to the next; meta says which answered', async () => {
  ch.setDown(true);
  try {
    const result = await check('FAILOVER', ['30']);
    assert.equal(result.status, 'COMPLETED', JSON.stringify(result.errors));
    assert.equal(result.meta.connection, 'backup');
  } finally {
    ch.setDown(false);
  }
});

test('a payer without eligibility, or with enrollment not done, is refused at submit with the reason', async () => {
  for (const [payer, why] of [
    ['NOELIG', /does not take eligibility inquiries/],
    ['ENROLL', /requires enrollment/],
  ] as const) {
    const res = await api().post('/api/eligibility', {
      ...sandboxRequest(JANE),
      tradingPartnerServiceId: payer,
    });
    assert.equal(res.status, 400);
    assert.match(res.body.message, why);
  }
});

test('reload: a file with several problems names them all and changes nothing; a good one takes effect at once', async () => {
  const directory = svc.service.directoryService!;
  const bad = payersFile([
    { id: 'NEW1', name: 'New', payerId: 'CH0005', connection: 'clearinghouse', timeoutMS: 5 },
  ]);
  (bad.connections as Record<string, unknown>).extra = {
    type: 'x12-json',
    url: backup.url,
    auth: { type: 'api-key', key: { env: 'NOT_SET_ANYWHERE' } },
  };
  writeFileSync(file, JSON.stringify(bad));
  await assert.rejects(directory.reload(), (err: Error) => {
    assert.match(err.message, /timeoutMS is not a known field/);
    assert.match(err.message, /NOT_SET_ANYWHERE is not set/);
    return true;
  });
  assert.equal(svc.service.resolvePayer('NEW1'), undefined);
  writeFileSync(
    file,
    JSON.stringify(payersFile([{ id: 'NEW1', name: 'New', payerId: 'CH0005', connection: 'clearinghouse' }])),
  );
  const summary = await directory.reload();
  assert.equal(summary.changed, true);
  assert.equal((await check('NEW1', ['30'])).status, 'COMPLETED');
});

test('import: a clearinghouse list adds payers to a connection without a restart; the file wins on a shared id', async () => {
  const directory = svc.service.directoryService!;
  const summary = await directory.importList('clearinghouse', [
    { id: 'IMP1', name: 'Imported One', payerId: 'CH0006' },
    { id: 'IMP2', name: 'Imported Two', payerId: 'CH0007', aliases: ['IMP2-OLD'] },
    { id: ch.payers[0]!.id, name: 'Shadowed', payerId: 'CH0008' },
  ]);
  assert.equal(summary.shadowed, 1);
  assert.equal((await check('IMP2-OLD', ['30'])).status, 'COMPLETED');
  assert.equal(svc.service.resolvePayer(ch.payers[0]!.id)?.payerName, ch.payers[0]!.name);
  await assert.rejects(directory.importList('nope', []), /not defined in PAYERS_FILE/);
});
