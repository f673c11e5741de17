/**
 * First start (issue 16 section 6): `elig serve` on an empty store listens before it creates the demo
 * organization, so a port already in use loses neither the one-time test key nor the sign-in link; the
 * error names PORT; and a later start says how to get new credentials.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

type Config = ReturnType<typeof testConfig>;

function envOf(config: Config, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ELIG_ENV: 'test',
    DATA_DIR: config.dataDir,
    DATABASE_URL: config.databaseUrl ?? '',
    DATABASE_SCHEMA: config.databaseSchema,
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    ELIG_SECRET_KEY: '',
  };
}

function collect(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { out, exited };
}

function elig(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['bin/elig.mjs', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, ...collect(child) };
}

/** Runs `elig serve` until its start-up text is printed, then stops it with SIGTERM. */
async function serveOnce(env: NodeJS.ProcessEnv): Promise<string> {
  const { child, out, exited } = elig(['serve'], env);
  const printed = await Promise.race([
    new Promise<true>((resolve) => {
      const poll = () =>
        /OpenAPI:[^\n]*\n[\s\S]*(Try it:[\s\S]*\n.*\n|To get new credentials:[\s\S]*reset-password.*\n)/.test(
          out.stdout,
        )
          ? resolve(true)
          : setTimeout(poll, 50);
      poll();
    }),
    exited.then((code) => new Error(`serve exited ${code}: ${out.stderr}`)),
  ]);
  if (printed !== true) throw printed;
  child.kill('SIGTERM');
  assert.equal(await exited, 0, out.stderr);
  return out.stdout;
}

test('a taken port fails the first start before anything is created; the next start prints the key and link', async () => {
  const config = testConfig();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const failed = elig(['serve'], envOf(config, taken));
    assert.equal(await failed.exited, 1);
    assert.match(
      failed.out.stderr,
      new RegExp(`^elig: port ${taken} on 127\\.0\\.0\\.1 is already in use`, 'm'),
    );
    assert.match(failed.out.stderr, /set PORT to a free port/);
    assert.doesNotMatch(failed.out.stdout, /Test API key|sign-in link/);

    const orgs = elig(['org', 'list'], envOf(config, 0));
    assert.equal(await orgs.exited, 0, orgs.out.stderr);
    assert.deepEqual(JSON.parse(orgs.out.stdout), [], 'the failed start created no organization');

    const first = await serveOnce(envOf(config, 0));
    assert.match(first, /First start: created the organization "Demo Clinic"/);
    assert.match(first, /Test API key: +elig_test_\w+/);
    assert.match(first, /Portal sign-in link: +http:\/\/127\.0\.0\.1:\d+\/portal\/login\/\S+/);

    const later = await serveOnce(envOf(config, 0));
    assert.doesNotMatch(later, /Test API key/);
    assert.match(later, /To get new credentials:/);
    assert.match(later, /elig key create --org ORG_ID --name NAME/);
    assert.match(later, /elig user reset-password --email EMAIL/);
  } finally {
    blocker.close();
    await dropTestSchema(config);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});
