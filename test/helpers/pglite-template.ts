/**
 * A migrated PGlite data directory that test services start from. initdb and the migrations cost a
 * service about 5 s of CPU; copying this template into its fresh DATA_DIR costs tens of milliseconds.
 *
 * The template is built once per migration set (the key hashes the migrations, the migrator, the PGlite
 * version and our settings) and cached under the OS temp directory, so later runs and direct
 * `node --test` runs reuse it. It is built in a child process (initdb's WebAssembly memory leaves with
 * it) into a private directory and published by one rename: a concurrent or crashed builder never
 * leaves half a template where others look. `npm test` builds it before the tests start and passes its
 * path in ELIG_TEST_PGLITE_TEMPLATE.
 *
 * Run directly (`node --import tsx test/helpers/pglite-template.ts`), it prints the template's path.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectPath } from '../../src/paths.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openPglite, PGLITE_SETTINGS } from '../../src/store/pglite.ts';

export const TEMPLATE_ENV = 'ELIG_TEST_PGLITE_TEMPLATE';
export const DATA_ROOT_ENV = 'ELIG_TEST_DATA_ROOT';

/** Everything the template's contents depend on. */
function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = projectPath('drizzle');
  for (const name of readdirSync(migrations).sort()) {
    if (name.endsWith('.sql')) hash.update(name).update(readFileSync(join(migrations, name)));
  }
  hash.update(readFileSync(join(migrations, 'meta', '_journal.json')));
  hash.update(readFileSync(projectPath('src', 'store', 'migrate.ts')));
  // How the store is opened (its settings, the private file system) shapes the files too.
  hash.update(readFileSync(projectPath('src', 'store', 'pglite.ts')));
  hash.update(readFileSync(projectPath('node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(PGLITE_SETTINGS.join('\n'));
  return hash.digest('hex').slice(0, 16);
}

/** The template's path, building it first when this migration set has none yet. */
export function pgliteTemplate(): string {
  const given = process.env[TEMPLATE_ENV];
  if (given) {
    if (!existsSync(join(given, 'PG_VERSION')))
      throw new Error(`${TEMPLATE_ENV}=${given} is not a data directory`);
    return given;
  }
  const dir = join(tmpdir(), `elig-pglite-template-${templateKey()}`);
  if (existsSync(dir)) return dir;
  const built = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), dir], {
    encoding: 'utf8',
  });
  if (built.status !== 0 || !existsSync(dir)) {
    throw new Error(`building the PGlite template ${dir} failed (exit ${built.status}): ${built.stderr}`);
  }
  return dir;
}

async function buildTemplate(dir: string): Promise<void> {
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const db = await openPglite(building);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(building, dir);
  } catch (err) {
    // Another builder published the same template first: theirs is as good as ours.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dir)) throw err;
  }
}

/**
 * Where tests put their data directories: a memory-backed /dev/shm when it has room (the copies and
 * PGlite's writes and fsyncs then cost no disk I/O, which other processes on the machine make slow),
 * otherwise the OS temp directory. ELIG_TEST_DATA_ROOT overrides both.
 */
export function testDataRoot(): string {
  const given = process.env[DATA_ROOT_ENV];
  if (given) {
    mkdirSync(given, { recursive: true });
    return given;
  }
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= 2 ** 30) return '/dev/shm';
  } catch {}
  return tmpdir();
}

/** Fills `pgDir` (which must not exist yet) with a copy of the migrated template. */
export function copyPgliteTemplate(pgDir: string): void {
  cpSync(pgliteTemplate(), pgDir, { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir) await buildTemplate(dir);
  else console.log(pgliteTemplate());
}
