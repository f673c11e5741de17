/**
 * Two worker processes on one PostgreSQL database share a clearinghouse account's limit of 5 at once: the
 * fake clearinghouse never sees a sixth request and answers no 429, while both processes do work. And a
 * reload in one process reaches the other (NOTIFY), without a restart. PostgreSQL only: on PGlite the store
 * belongs to one process, whose limits are kept in memory (covered by clearinghouse.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Service, startService } from '../../src/server.ts';
import {
  client,
  LogCapture,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';
import {
  type ClearinghouseFake,
  clearinghousePayersFile,
  startClearinghouseFake,
} from '../payers/fakes/clearinghouse.ts';

const NEEDS_PG = process.env.DATABASE_URL
  ? false
  : 'PostgreSQL only (set DATABASE_URL): two processes share one database';
const JANE = { memberId: 'M100200300', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const env = { CH_KEY: 'ch-key-workers' };

let ch: ClearinghouseFake;
let a: TestService;
let b: Service;
const bLogs = new LogCapture();
const dir = mkdtempSync(join(tmpdir(), 'elig-clearinghouse-workers-'));
const file = join(dir, 'payers.json');

const payersFile = (count: number) =>
  clearinghousePayersFile({
    url: ch.url,
    connectionName: 'clearinghouse',
    keyEnv: 'CH_KEY',
    payers: ch.payers.slice(0, count),
    limits: { concurrency: 5 },
  });

before(async () => {
  if (NEEDS_PG) return;
  ch = await startClearinghouseFake({ apiKey: env.CH_KEY, payers: 200, concurrency: 5, latencyMs: 40 });
  writeFileSync(file, JSON.stringify(payersFile(150)));
  a = await startTestService({ config: { payersFile: file, workerConcurrency: 8 }, secretEnv: env });
  // The second process: the same database and schema, workers only.
  b = await startService(a.config, {
    roles: { api: false, worker: true },
    secretEnv: env,
    logDestination: bLogs,
  });
});

after(async () => {
  if (NEEDS_PG) return;
  await b?.stop();
  await a?.stop();
  await ch?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('two worker processes never exceed the account limit together, and both do work', {
  skip: NEEDS_PG,
}, async () => {
  const api = client(a.url, a.apiKey);
  const ids: string[] = [];
  for (const p of ch.payers.slice(0, 120)) {
    const res = await api.post('/api/eligibility', {
      ...sandboxRequest(JANE),
      tradingPartnerServiceId: p.id,
      encounter: { serviceTypeCodes: ['30'] },
    });
    assert.equal(res.status, 202);
    ids.push(res.body.id);
  }
  for (const id of ids) assert.equal((await waitForResult(api, id, 60_000)).status, 'COMPLETED');
  assert.equal(ch.stats.tooManyRequests, 0, 'no 429: the limit held across both processes');
  assert.ok(ch.stats.maxConcurrent <= 5, `at most 5 at once (saw ${ch.stats.maxConcurrent})`);
  const finishedByB = bLogs.lines.filter((l) => l.includes('"msg":"check finished"')).length;
  const finishedByA = a.logs.lines.filter((l) => l.includes('"msg":"check finished"')).length;
  assert.ok(finishedByA > 0 && finishedByB > 0, `both processes worked (a ${finishedByA}, b ${finishedByB})`);
});

test('a reload in one process reaches the other without a restart', { skip: NEEDS_PG }, async () => {
  const added = ch.payers[180]!.id;
  assert.equal(b.resolvePayer(added), undefined);
  writeFileSync(file, JSON.stringify(payersFile(190)));
  await a.service.directoryService!.reload();
  const deadline = Date.now() + 10_000;
  while (!b.resolvePayer(added) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(b.resolvePayer(added)?.tradingPartnerServiceId, added);
});
