/** The embedded store's process-level choices: small shared buffers, and initdb in a child process. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openPglite } from '../../src/store/pglite.ts';

test('a new data directory is created by a child process and then opened with small shared buffers', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'elig-pglite-')), 'pg');
  try {
    const db = await openPglite(dir, { initInChildProcess: true });
    try {
      assert.ok(existsSync(join(dir, 'PG_VERSION')), 'the cluster exists on disk');
      await db.query('CREATE TABLE t (n int)');
      await db.query('INSERT INTO t VALUES (1), (2)');
      const { rows } = await db.query<{ setting: string; unit: string }>(
        "SELECT setting, unit FROM pg_settings WHERE name = 'shared_buffers'",
      );
      assert.equal(
        Number(rows[0]!.setting) * 8,
        16 * 1024,
        `shared_buffers ${rows[0]!.setting} x ${rows[0]!.unit}`,
      );
    } finally {
      await db.close();
    }
    // Reopened (now existing, so no child): the data is there.
    const again = await openPglite(dir, { initInChildProcess: true });
    try {
      const { rows } = await again.query<{ n: number }>('SELECT sum(n)::int AS n FROM t');
      assert.equal(rows[0]!.n, 3);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});

test('a data directory that cannot be created fails with a message naming it', async () => {
  // A file where the directory should be makes initdb fail in the child.
  const parent = mkdtempSync(join(tmpdir(), 'elig-pglite-'));
  writeFileSync(join(parent, 'pg'), 'not a directory');
  try {
    await assert.rejects(
      openPglite(join(parent, 'pg'), { initInChildProcess: true }),
      /creating the PGlite database in .*pg failed \(exit \d+\)/,
    );
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
