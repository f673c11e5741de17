import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireDataDirLock, DataDirLockedError, lockPath, readLock } from '../../src/store/datadir-lock.ts';

test('a second lock on the same directory fails at once with a clear message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'elig-lock-'));
  const lock = acquireDataDirLock(dir);
  try {
    writeFileSync(lockPath(dir), JSON.stringify({ pid: process.ppid, startedAt: 'earlier' })); // another live process
    assert.throws(
      () => acquireDataDirLock(dir),
      (err: Error) => err instanceof DataDirLockedError && /in use by another process/.test(err.message),
    );
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stale lock of a dead process is taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'elig-lock-'));
  const child = spawn(process.execPath, ['-e', '0']);
  const deadPid = child.pid!;
  await new Promise((r) => child.on('exit', r));
  writeFileSync(lockPath(dir), JSON.stringify({ pid: deadPid, startedAt: 'long ago' }));
  assert.equal(readLock(dir), undefined);
  const lock = acquireDataDirLock(dir);
  assert.equal(readLock(dir)?.pid, process.pid);
  lock.release();
  assert.equal(readLock(dir), undefined);
  rmSync(dir, { recursive: true, force: true });
});

test('a second process opening a data directory held by a server exits with the lock message', {
  skip: !!process.env.DATABASE_URL,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'elig-lock-'));
  const lock = acquireDataDirLock(dir);
  try {
    const child = spawn(process.execPath, ['bin/elig.mjs', 'org', 'list'], {
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', ELIG_ENV: 'test' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.on('exit', r));
    assert.equal(code, 1);
    assert.match(stderr, /not serving HTTP|in use by another process/);
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
});
