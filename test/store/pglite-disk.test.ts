/**
 * The embedded store on a disk that fills up, for real: a small tmpfs (mounting one needs root; the test
 * fails, not skips, when it cannot). What the service sees is in test/chaos/pglite-faults.test.ts; here,
 * the store's own answers: with the guard off, PostgreSQL's ENOSPC (53100 "could not extend file")
 * becomes DatabaseUnavailableError; with it on (the default), writes are refused before the disk is
 * full, reads go on, and both work again once space returns, in the same instance.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DatabaseUnavailableError, type Db } from '../../src/store/db.ts';
import { openPglite } from '../../src/store/pglite.ts';

let root: string;
let disk: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'elig-pglite-disk-'));
  disk = join(root, 'disk');
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', disk], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(
      `this test needs root (CAP_SYS_ADMIN) to mount a small tmpfs: ${(err as { stderr?: Buffer }).stderr ?? err}`,
    );
  }
});

after(() => {
  execFileSync('umount', ['-l', disk]);
  rmSync(root, { recursive: true, force: true });
});

/** Fills the disk until `leaveBytes` are free (0: until ENOSPC); returns the filler file. */
function fill(name: string, leaveBytes: number): string {
  const path = join(disk, name);
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(1 << 16, 1);
  try {
    for (;;) {
      const fs = statfsSync(disk);
      if (fs.bavail * fs.bsize - block.length < leaveBytes) break;
      writeSync(fd, block);
    }
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    closeSync(fd);
  }
  return path;
}

async function rejectsUnavailable(p: Promise<unknown>, reason: string, what: string): Promise<void> {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof DatabaseUnavailableError, `${what}: ${err}`);
    assert.equal(err.reason, reason, what);
    return true;
  });
}

const insert = (db: Db, i: number) => db.query('INSERT INTO t (v) VALUES ($1)', [`${i}`.padEnd(1000, 'x')]);

test('guard off: a full disk surfaces as 53100 and becomes DatabaseUnavailableError(disk-full); writes resume when space returns', {
  timeout: 120_000,
}, async () => {
  const db = await openPglite(join(disk, 'raw'), { lowDiskBytes: 0 });
  try {
    await db.query('CREATE TABLE t (id serial PRIMARY KEY, v text)');
    await insert(db, 0);
    const filler = fill('filler-raw', 0);
    let failure: unknown;
    for (let i = 1; i <= 200 && !failure; i++) await insert(db, i).catch((err) => (failure = err));
    assert.ok(failure instanceof DatabaseUnavailableError, `an insert failed: ${failure}`);
    assert.equal(failure.reason, 'disk-full');
    assert.equal((await db.storageFault())?.reason, 'disk-full', 'readiness learns of it');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
    assert.ok(rows[0]!.n >= 1, 'reads still work');

    unlinkSync(filler);
    await insert(db, 1000);
    await db.transaction((tx) => tx.query("INSERT INTO t (v) VALUES ('in a transaction')"));
  } finally {
    await db.close();
  }
});

test('guard on: with less than 32 MB free, writes are refused (disk-full) and reads go on; writes resume when space returns', {
  timeout: 120_000,
}, async () => {
  const db = await openPglite(join(disk, 'guarded'));
  try {
    await db.query('CREATE TABLE t (id serial PRIMARY KEY, v text)');
    await insert(db, 0);
    assert.equal(await db.storageFault(), undefined);
    const filler = fill('filler-guarded', 8 * 1024 * 1024);
    assert.equal((await db.storageFault())?.reason, 'disk-full', 'readiness samples the disk at once');
    await rejectsUnavailable(insert(db, 1), 'disk-full', 'an insert');
    await rejectsUnavailable(
      db.transaction((tx) => tx.query("INSERT INTO t (v) VALUES ('x')")),
      'disk-full',
      'a transaction',
    );
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
    assert.equal(rows[0]!.n, 1, 'reads still work');

    unlinkSync(filler);
    assert.equal(await db.storageFault(), undefined, 'space is back');
    await insert(db, 2);
    const after = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
    assert.equal(after.rows[0]!.n, 2);
  } finally {
    await db.close();
  }
});
