/**
 * The embedded store's directory holds PHI in plain text: after start, after checks and after a restart on
 * a directory someone opened up, nothing under DATA_DIR may be readable by group or others.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/server.ts';
import { client, LogCapture, sandboxRequest, startTestService, waitForResult } from '../helpers/service.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const parent = mkdtempSync(join(tmpdir(), 'elig-private-'));
after(() => rmSync(parent, { recursive: true, force: true }));

/** Every path under `root` (itself included) whose mode lets group or others in, with its mode. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.mode & 0o077) found.push(`${path.slice(root.length) || '/'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return found;
}

function countPaths(root: string): number {
  const stat = lstatSync(root);
  return (
    1 + (stat.isDirectory() ? readdirSync(root).reduce((n, name) => n + countPaths(join(root, name)), 0) : 0)
  );
}

/** `elig serve` on PGlite, whatever DATABASE_URL says: this is about the embedded store's files. */
async function serve(dataDir: string, logs = new LogCapture()) {
  const config = loadConfig({
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    SANDBOX_LATENCY_MS: '0',
    WORKER_POLL_MS: '200',
  });
  const service = await startService(config, { initStoreInChildProcess: true, logDestination: logs });
  return { service, logs };
}

async function runChecks(url: string, apiKey: string, count: number): Promise<void> {
  const c = client(url, apiKey);
  for (let i = 0; i < count; i++) {
    const res = await c.post('/api/eligibility', sandboxRequest(JANE));
    assert.equal(res.status, 202);
    assert.equal((await waitForResult(c, res.body.id)).status, 'COMPLETED');
  }
}

test('a new data directory, its PGlite files and the secret key are private after start and after checks', async () => {
  const dataDir = join(parent, 'fresh', 'data');
  const { service } = await serve(dataDir);
  try {
    assert.ok(countPaths(dataDir) > 1000, 'the cluster, lock file and secret key are there');
    assert.deepEqual(openToOthers(dataDir), [], 'after start');
    await runChecks(service.url!, service.bootstrap!.apiKey, 3);
    await service.store.db.query('CHECKPOINT');
    assert.deepEqual(openToOthers(dataDir), [], 'after checks');
  } finally {
    await service.stop();
  }
  assert.deepEqual(openToOthers(dataDir), [], 'after shutdown');
});

test('an existing directory opened to everyone is made private at start, and says so in the log', async () => {
  const dataDir = join(parent, 'loose', 'data');
  const first = await serve(dataDir);
  const apiKey = first.service.bootstrap!.apiKey;
  await first.service.stop();
  // What a copy or restore with a loose umask leaves behind: everything world-readable and -writable.
  const loosen = (path: string) => {
    const stat = lstatSync(path);
    chmodSync(path, stat.isDirectory() ? 0o777 : 0o666);
    if (stat.isDirectory()) for (const name of readdirSync(path)) loosen(join(path, name));
  };
  mkdirSync(join(dataDir, 'exports'));
  writeFileSync(join(dataDir, 'exports', 'notes.txt'), 'left by an operator');
  loosen(dataDir);
  const opened = openToOthers(dataDir).length;
  assert.ok(opened > 1000, `${opened} paths opened up`);

  const { service, logs } = await serve(dataDir);
  try {
    assert.deepEqual(openToOthers(dataDir), [], 'after restart');
    const line = logs.lines.map((l) => JSON.parse(l)).find((l) => /made it private/.test(l.msg));
    assert.equal(line?.paths, opened);
    await runChecks(service.url!, apiKey, 2);
    assert.deepEqual(openToOthers(dataDir), [], 'after checks');
  } finally {
    await service.stop();
  }
});

test('the secret key directory is private on either store', async () => {
  const svc = await startTestService({
    config: { dataDir: join(parent, 'either', 'data') },
    roles: { api: true, worker: false },
  });
  try {
    assert.deepEqual(openToOthers(svc.config.dataDir), []);
  } finally {
    await svc.stop();
  }
});
