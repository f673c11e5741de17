/**
 * `elig monitor list|show|create|pause|resume|delete` against a running service: the whole life of a monitor
 * through the API, an Idempotency-Key replay, the list's table without patient names, and the API's own
 * words on an error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eligInProcess } from '../helpers/cli.ts';
import { member } from '../helpers/members.ts';
import { dayFromToday } from '../helpers/monitors.ts';
import { sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let dir: string;
let file: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  dir = mkdtempSync(join(tmpdir(), 'elig-monitor-cli-'));
  file = join(dir, 'patient.json');
  writeFileSync(file, JSON.stringify(sandboxRequest(member('SBX1000001'))));
});
after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = () => ['--url', svc.url, '--key', svc.apiKey];
const elig = (...argv: string[]) => eligInProcess('monitor', ...argv, ...api());

test('create, list, show, pause, resume and delete a monitor', async () => {
  const created = await elig('create', file, '--every', '30');
  assert.equal(created.code, 0, created.stderr);
  const monitor = JSON.parse(created.stdout);
  assert.match(monitor.id, /^mon_/);
  assert.equal(monitor.every, 30);
  assert.equal(monitor.status, 'active');
  assert.match(created.stderr, new RegExp(`Monitor ${monitor.id}: active, next run `));

  const dates = await elig('create', file, '--dates', `${dayFromToday(5, true)},${dayFromToday(3)}`);
  assert.equal(dates.code, 0, dates.stderr);
  assert.deepEqual(JSON.parse(dates.stdout).dates, [dayFromToday(3), dayFromToday(5)]);

  const list = await elig('list');
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^ID\s+STATUS\s+PAYER\s+MEMBER\s+SCHEDULE\s+NEXT RUN\s+RUNS$/);
  assert.equal(lines.length, 3, 'a header and the two monitors');
  assert.match(lines[1]!, new RegExp(`2 dates ${dayFromToday(3)}-${dayFromToday(5)}`), 'newest first');
  assert.match(lines[2]!, new RegExp(`^${monitor.id}\\s+active\\s+SANDBOX\\s+…0001\\s+every 30 days\\s`));
  for (const phi of ['JANE', 'DOE', 'SBX1000001', '19800115']) assert.ok(!list.stdout.includes(phi), phi);
  const json = await elig('list', '--json');
  assert.deepEqual(
    JSON.parse(json.stdout).map((m: { id: string }) => m.id),
    [JSON.parse(dates.stdout).id, monitor.id],
  );

  const paused = await elig('pause', monitor.id);
  assert.equal(paused.code, 0, paused.stderr);
  assert.equal(JSON.parse(paused.stdout).status, 'paused');
  const resumed = await elig('resume', monitor.id);
  assert.equal(JSON.parse(resumed.stdout).status, 'active');
  const shown = await elig('show', monitor.id);
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual(JSON.parse(shown.stdout).runs, []);

  const deleted = await elig('delete', monitor.id);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stderr, /deleted/);
  const gone = await elig('show', monitor.id);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /API answered 404 ResourceNotFoundException/);
  const again = await elig('delete', monitor.id);
  assert.notEqual(again.code, 0);
});

test('--idempotency-key: running the same create again answers the same monitor', async () => {
  const first = await elig('create', file, '--every', '7', '--idempotency-key', 'cli-mon-1');
  const second = await elig('create', file, '--every', '7', '--idempotency-key', 'cli-mon-1');
  assert.equal(second.code, 0, second.stderr);
  assert.equal(JSON.parse(second.stdout).id, JSON.parse(first.stdout).id);
  const other = await elig('create', file, '--every', '8', '--idempotency-key', 'cli-mon-1');
  assert.notEqual(other.code, 0);
  assert.match(other.stderr, /422 ValidationException: Idempotency-Key was already used/);
});

test("errors: the API's message for a bad schedule, and the CLI's for a bad file or two schedules", async () => {
  const noSchedule = await elig('create', file);
  assert.notEqual(noSchedule.code, 0);
  assert.match(noSchedule.stderr, /400 ValidationException: .*needs a schedule/);
  const badEvery = await elig('create', file, '--every', 'weekly');
  assert.match(badEvery.stderr, /every must be a whole number of days from 1 to 365/);
  const both = await elig('create', file, '--every', '7', '--dates', dayFromToday(3));
  assert.notEqual(both.code, 0);
  assert.match(both.stderr, /Give --every or --dates, not both/);
  const missing = await elig('create', join(dir, 'nope.json'), '--every', '7');
  assert.match(missing.stderr, /Cannot read .*nope\.json: ENOENT/);
  const list = join(dir, 'list.json');
  writeFileSync(list, '[]');
  assert.match((await elig('create', list, '--every', '7')).stderr, /must hold one JSON object/);
  for (const stream of [noSchedule.stderr, badEvery.stderr]) assert.ok(!stream.includes('SBX1000001'));
});
