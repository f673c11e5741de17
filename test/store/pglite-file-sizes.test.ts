/**
 * The embedded store remembers file sizes between writes (src/store/private-nodefs.mjs, `fileSizeCache`):
 * what PostgreSQL reads as a relation's size must stay the file's size on disk through growth, bulk
 * extension, truncation by VACUUM, a new relfilenode, and a reopen.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openPglite } from '../../src/store/pglite.ts';

test('relation sizes PostgreSQL sees are the files on disk, through growth, truncation and a reopen', async () => {
  const dir = mkdtempSync(join(process.env.ELIG_TEST_DATA_ROOT ?? tmpdir(), 'elig-sizes-'));
  try {
    let db = await openPglite(dir);
    const sizes = async (table: string) => {
      const { rows } = await db.query<{ path: string; size: string }>(
        `SELECT pg_relation_filepath('${table}') AS path, pg_relation_size('${table}') AS size`,
      );
      return { seen: Number(rows[0]!.size), onDisk: statSync(join(dir, rows[0]!.path)).size };
    };
    await db.query('CREATE TABLE grow (id int, pad text)');
    for (let round = 0; round < 5; round++) {
      await db.query(
        `INSERT INTO grow SELECT g, repeat('x', 200) FROM generate_series(${round * 4000 + 1}, ${(round + 1) * 4000}) g`,
      );
      const s = await sizes('grow');
      assert.ok(s.seen > 0);
      assert.equal(s.seen, s.onDisk, `after insert round ${round}`);
    }
    // VACUUM truncates the emptied end of the table (ftruncate).
    await db.query('DELETE FROM grow WHERE id > 2000');
    await db.query('VACUUM grow');
    const vacuumed = await sizes('grow');
    assert.equal(vacuumed.seen, vacuumed.onDisk);
    assert.ok(vacuumed.seen < 20_000 * 200, 'VACUUM gave the tail back');
    // A new relfilenode, then growth again.
    await db.query('TRUNCATE grow');
    assert.deepEqual(await sizes('grow'), { seen: 0, onDisk: 0 });
    await db.query(`INSERT INTO grow SELECT g, repeat('y', 500) FROM generate_series(1, 3000) g`);
    const regrown = await sizes('grow');
    assert.equal(regrown.seen, regrown.onDisk);
    await db.close();
    db = await openPglite(dir);
    const { rows } = await db.query<{ n: number; y: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE pad = repeat('y', 500))::int AS y FROM grow`,
    );
    assert.deepEqual(rows[0], { n: 3000, y: 3000 });
    const reopened = await sizes('grow');
    assert.equal(reopened.seen, reopened.onDisk);
    assert.equal(reopened.seen, regrown.seen);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
