/** Docs match the code: the README's configuration table is the one generated from the config schema. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_DOCS } from '../src/config.ts';

test('every configuration variable is documented in the README with its default', () => {
  const readme = readFileSync('README.md', 'utf8');
  for (const v of CONFIG_DOCS) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${v.name}\` |`));
    assert.ok(row, `README lacks ${v.name} (run npm run docs:config)`);
    if (v.default !== undefined)
      assert.ok(row.includes(`\`${v.default}\``), `README default of ${v.name} is stale`);
  }
});

test('the README starts with the two Quick start commands', () => {
  const readme = readFileSync('README.md', 'utf8');
  const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Quick start') + 600);
  assert.match(quick, /npm install && npm start/);
  assert.match(quick, /npm install && npm test/);
});

test('the CI script runs the README test command, then the PostgreSQL suite', () => {
  const ci = readFileSync('.ci/run', 'utf8');
  assert.match(ci, /npm test/);
  assert.match(ci, /DATABASE_URL=.* npm test/);
});
