/** `.env` is read, and the process environment wins over it; an unreadable file stops the start. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig, withDotEnv } from '../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'elig-dotenv-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('variables of .env are read; those set in the environment win', () => {
  const file = join(dir, '.env');
  writeFileSync(file, '# a comment\nPORT=9191\nLOG_LEVEL="warn"\nRETENTION_DAYS=7\n');
  const env = withDotEnv({ RETENTION_DAYS: '9' }, file);
  const config = loadConfig(env);
  assert.equal(config.port, 9191);
  assert.equal(config.logLevel, 'warn');
  assert.equal(config.retentionDays, 9);
});

test('no .env: the environment alone', () => {
  const env = { PORT: '1234' };
  assert.equal(withDotEnv(env, join(dir, 'missing.env')), env);
});

test('a .env that exists but cannot be read stops the start, naming the file', () => {
  // A directory where the file should be: unreadable as a file, whoever runs the test (root included).
  assert.throws(
    () => withDotEnv({}, dir),
    (err: Error) => err instanceof ConfigError && err.message.includes(dir) && err.message.includes('EISDIR'),
  );
});
