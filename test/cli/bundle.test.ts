/**
 * The production bundle (`npm run build` → dist/elig.mjs, run by bin/elig.mjs without tsx): built here
 * into a scratch directory inside the project, then driven end to end: `serve` answers a sandbox check
 * with its benefits, serves the portal's assets and the OpenAPI document; `x12 parse` reads a corpus file.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { dropTestSchema, sandboxRequest, testConfig } from '../helpers/service.ts';
import { CORPUS_DIR } from '../helpers/x12-corpus.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scratch = join(ROOT, '.tmp', `bundle-test-${process.pid}`);
const bundle = join(scratch, 'elig.mjs');

function run(args: string[], env: Record<string, string | undefined> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

before(async () => {
  const built = await run(['scripts/build.mjs', bundle, '--strict']);
  assert.equal(built.code, 0, built.stderr);
  assert.ok(existsSync(bundle));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

test('bin/elig.mjs runs the sources through tsx when the bundle is missing or ELIG_RUNTIME=tsx', async () => {
  for (const env of [
    { ELIG_BUNDLE: join(scratch, 'missing.mjs') },
    { ELIG_BUNDLE: bundle, ELIG_RUNTIME: 'tsx' },
  ]) {
    const res = await run([join(ROOT, 'bin', 'elig.mjs'), 'frobnicate'], { ...env, ELIG_ENV: 'test' });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /Usage: elig/);
  }
});

test('the bundle serves: a sandbox check completes with benefits; portal assets and OpenAPI load', async () => {
  // An empty DATA_DIR: the bundle must find pglite-init.mjs to create the store in a child process.
  const config = testConfig({}, { emptyDataDir: true });
  const env: Record<string, string | undefined> = {
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: config.dataDir,
    DATABASE_URL: config.databaseUrl,
    DATABASE_SCHEMA: config.databaseSchema,
    SANDBOX_LATENCY_MS: '0',
    LOG_LEVEL: 'warn',
  };
  // bin/elig.mjs as operators run it, told to use this bundle (it is newer than every source file).
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'elig.mjs'), 'serve'], {
    cwd: tmpdir(), // the bundle finds its files from its own location, not the working directory
    env: { ...process.env, ...env, ELIG_BUNDLE: bundle },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  try {
    let banner = '';
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        banner = out;
        const url = /API:\s+(http:\/\/\S+)\/api\/eligibility/.exec(out)?.[1];
        const key = /Test API key:\s+(\S+)/.exec(out)?.[1];
        if (url && key) resolve({ url, key });
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    assert.match(banner, /; bundle\)/, 'the banner says the bundle runs');
    const headers = { authorization: `Key ${key}`, 'content-type': 'application/json' };
    const submitted = await fetch(`${url}/api/eligibility`, {
      method: 'POST',
      headers,
      body: JSON.stringify(sandboxRequest(member('SBX1000001'))),
    });
    assert.equal(submitted.status, 202);
    const { id } = (await submitted.json()) as { id: string };
    const result: any = await eventually(
      async () => {
        const status: any = await fetch(`${url}/api/eligibility/${id}/status`, { headers }).then((r) =>
          r.json(),
        );
        return status.status !== 'IN_PROGRESS' && status;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the check finishing' },
    );
    assert.equal(result.status, 'COMPLETED');
    assert.equal(result.benefits.length, 7);
    const css = await fetch(`${url}/portal/assets/portal.css`);
    assert.equal(css.status, 200);
    assert.match(await css.text(), /[{}]/);
    const openapi = (await fetch(`${url}/openapi.json`).then((r) => r.json())) as { openapi: string };
    assert.match(openapi.openapi, /^3\.1/);
    // The API reference's renderer is read from node_modules at run time, from the bundle too.
    const renderer = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    assert.equal(renderer.status, 200);
    assert.match(await renderer.text(), /SwaggerUIBundle/);
  } finally {
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0, stderr);
    rmSync(config.dataDir, { recursive: true, force: true });
    await dropTestSchema(config);
  }
});

test('the bundle parses a corpus 271 with `x12 parse`', async () => {
  const file = join(CORPUS_DIR, 'cosyte-x12', '271_5010A1_aaa_with_benefits.edi');
  const res = await run([join(ROOT, 'bin', 'elig.mjs'), 'x12', 'parse', file], {
    ELIG_ENV: 'test',
    LOG_LEVEL: 'silent',
    ELIG_BUNDLE: bundle,
  });
  assert.equal(res.code, 0, res.stderr);
  const parsed = JSON.parse(res.stdout);
  assert.ok(Array.isArray(parsed.benefitsInformation) && parsed.benefitsInformation.length > 0);
  assert.equal(parsed.benefits.length, 7);
});
