/** Docs match the code: the README's configuration table is the one generated from the config schema. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configTable } from '../scripts/config-table.ts';
import { ERRORS_DOC, errorsDoc } from '../scripts/error-table.ts';
import { CONFIG_VARIABLES } from '../src/config.ts';

test('the README configuration table is the one generated from the config schema', () => {
  const readme = readFileSync('README.md', 'utf8');
  assert.ok(readme.includes(`${configTable()}\n`), 'the README table is stale: run npm run docs:config');
  for (const v of CONFIG_VARIABLES) assert.match(configTable(), new RegExp(`^\\| \`${v.name}\` \\|`, 'm'));
});

test('the README starts with the two Quick start commands', () => {
  const readme = readFileSync('README.md', 'utf8');
  const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Quick start') + 600);
  assert.match(quick, /npm install && npm start/);
  assert.match(quick, /npm install && npm test/);
});

test('the CI script runs the README test command in a fresh clone, then the PostgreSQL suite', () => {
  const ci = readFileSync('.ci/run', 'utf8');
  const clone = ci.search(/^git clone .*"\$tmp\/p"$/m);
  const into = ci.search(/^cd "\$tmp\/p"$/m);
  assert.ok(clone > 0 && into > clone, 'clones into a new temporary directory and works there');
  assert.match(ci, /^tmp="\$\(mktemp -d\)"$/m);
  assert.match(ci, /^trap 'rm -rf "\$tmp"' EXIT$/m);
  assert.ok(ci.indexOf('\nnpm test\n') > into, 'npm test runs in the clone');
  assert.match(ci, /DATABASE_URL=.* npm test/);
});

test('docs/errors.md is the one generated from the error catalog', () => {
  assert.equal(
    readFileSync(ERRORS_DOC, 'utf8'),
    errorsDoc(),
    'docs/errors.md is stale: run npm run docs:errors',
  );
});
