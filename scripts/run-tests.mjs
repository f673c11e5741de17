// Runs every test/**/*.test.ts with Node's built-in test runner (Node 20's runner does not expand globs).
// Extra arguments filter by path substring: `npm test -- e2e webhooks`.
//
// On PGlite it first makes sure the migrated template that test services copy exists (see
// test/helpers/pglite-template.ts), so no test file pays initdb and the migrations, and none waits for
// another to build it.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

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

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
