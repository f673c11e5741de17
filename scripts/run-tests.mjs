// Runs every test/**/*.test.ts with Node's built-in test runner (Node 20's runner does not expand globs).
// Extra arguments filter by path substring: `npm test -- e2e webhooks`.
//
// On PGlite it first makes sure the migrated template that test services copy exists (see
// test/helpers/pglite-template.ts), so no test file pays initdb and the migrations, and none waits for
// another to build it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { ensureChromium } from './ensure-chromium.mjs';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? find(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();
if (!files.length) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// Install Chromium once, before the files run in parallel, rather than from two browser tests at the
// same moment. A failure is printed here and the browser tests then fail loudly on their own.
if (files.some((f) => f.includes(`test${sep}browser${sep}`))) {
  try {
    ensureChromium();
  } catch (err) {
    console.error(err.message);
  }
}

const env = { ...process.env };
if (!env.DATABASE_URL && !env.ELIG_TEST_PGLITE_TEMPLATE) {
  const template = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/pglite-template.ts'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (template.status !== 0) {
    console.error('could not build the migrated PGlite template for the tests');
    process.exit(1);
  }
  env.ELIG_TEST_PGLITE_TEMPLATE = template.stdout.trim();
}

// One root for this run's data directories, removed at the end: a test killed mid-way (or one that
// forgets to clean up) leaves nothing behind in /dev/shm or the temp directory. Memory-backed /dev/shm
// when it has room (no disk I/O for PGlite's writes and fsyncs), else the OS temp directory.
function memoryBacked() {
  try {
    const fs = statfsSync('/dev/shm');
    return fs.bavail * fs.bsize >= 2 ** 30 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
let runRoot;
if (!env.ELIG_TEST_DATA_ROOT) {
  runRoot = mkdtempSync(join(memoryBacked() ?? tmpdir(), 'elig-run-'));
  env.ELIG_TEST_DATA_ROOT = runRoot;
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit', env },
);
if (runRoot) rmSync(runRoot, { recursive: true, force: true });
process.exit(result.status ?? 1);
