/**
 * packages/client is publishable as is: it builds with tsc to ESM and .d.ts, `npm pack` ships the build,
 * and a project that installs it imports it by name with plain Node (no tsx) and type-checks against it
 * with only the DOM's types (no @types/node), the way a browser or edge project would. It has no runtime
 * dependency: its sources import nothing but each other.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { projectPath } from '../../src/paths.ts';

const PACKAGE = projectPath('packages', 'client');
const TSC = projectPath('node_modules', 'typescript', 'bin', 'tsc');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));

let work: string;
/** The package as published: its manifest, README, licence and sources, and dist/ built by its own tsconfig. */
let published: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'elig-client-pkg-'));
  published = join(work, 'package');
  mkdirSync(published);
  for (const file of ['package.json', 'README.md', 'LICENSE', 'src', 'tsconfig.json']) {
    cpSync(join(PACKAGE, file), join(published, file), { recursive: true });
  }
  execFileSync(process.execPath, [TSC, '-p', join(published, 'tsconfig.json')], { stdio: 'pipe' });
});
after(() => rmSync(work, { recursive: true, force: true }));

test('the manifest: name, version 1.0.0, ESM exports with types, no runtime dependency', () => {
  assert.equal(manifest.name, '@eligibility/client');
  assert.equal(manifest.version, '1.0.0');
  assert.equal(manifest.type, 'module');
  assert.deepEqual(manifest.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
  assert.equal(manifest.dependencies, undefined);
  assert.equal(manifest.peerDependencies, undefined);
  assert.equal(manifest.scripts.build, 'tsc -p tsconfig.json');
});

test('the sources import nothing outside the package (zero runtime dependencies)', () => {
  const files = readdirSync(join(PACKAGE, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  assert.ok(files.length >= 5);
  for (const file of files) {
    const text = readFileSync(join(PACKAGE, 'src', file), 'utf8');
    for (const [, specifier] of text.matchAll(/\bfrom\s+'([^']+)'/g)) {
      assert.match(specifier!, /^\.\.?\//, `${file} imports ${specifier}`);
    }
    assert.doesNotMatch(text, /\bimport\s*\(|require\(/, `${file} loads a module dynamically`);
  }
});

test('npm pack ships the built ESM, its declarations, the README and the licence', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: published,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [pack] = JSON.parse(out) as { name: string; version: string; files: { path: string }[] }[];
  const paths = pack!.files.map((f) => f.path);
  for (const path of [
    'package.json',
    'README.md',
    'LICENSE',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/client.js',
  ]) {
    assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
  }
  assert.ok(!paths.some((p) => p.includes('test')), 'no tests in the package');
  assert.deepEqual([pack!.name, pack!.version], ['@eligibility/client', '1.0.0']);
  assert.equal(JSON.parse(readFileSync(join(published, 'package.json'), 'utf8')).license, 'Apache-2.0');
});

test('an installed copy imports by name with plain Node and type-checks with DOM types only', () => {
  const app = join(work, 'app');
  cpSync(published, join(app, 'node_modules', '@eligibility', 'client'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"type":"module","private":true}');

  // Runs without tsx: the built JavaScript, resolved through `exports`.
  const script = `
    import { createHmac } from 'node:crypto';
    import { EligibilityClient, ThrottlingException, EligibilityApiError, verifyWebhook } from '@eligibility/client';
    const body = '{"id":"x","status":"COMPLETED"}';
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', 'whsec_test').update(ts + '.' + body).digest('hex');
    const ok = await verifyWebhook(body, { 'x-webhook-timestamp': ts, 'x-webhook-signature': sig }, 'whsec_test');
    new EligibilityClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    console.log(JSON.stringify({ ok: ok.ok, sub: new ThrottlingException(429, 'ThrottlingException', 'm') instanceof EligibilityApiError }));
  `;
  const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: app,
    encoding: 'utf8',
  });
  assert.deepEqual(JSON.parse(printed), { ok: true, sub: true });

  // Type-checks against the published .d.ts, with the DOM's fetch types and no Node types.
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(app, 'consumer.ts'),
    `import { EligibilityClient, type BenefitEntry, type EligibilityCheckResponse } from '@eligibility/client';
const client = new EligibilityClient({ baseUrl: 'https://eligibility.example.com', apiKey: 'k' });
export async function coverage(id: string): Promise<BenefitEntry[]> {
  const check: EligibilityCheckResponse = await client.waitForCheck(id, { timeoutMs: 60_000 });
  return check.benefits ?? [];
}
// @ts-expect-error: the request type is checked (no subscriber, an unknown payer field)
client.submitCheck({ tradingPartnerServiceId: 'SANDBOX', payer: 'x' });
`,
  );
  execFileSync(process.execPath, [TSC, '-p', join(app, 'tsconfig.json')], { stdio: 'pipe' });

  // And the same check fails on a type error, so it is not passing by not looking.
  writeFileSync(
    join(app, 'consumer.ts'),
    `import { EligibilityClient } from '@eligibility/client';\nnew EligibilityClient({ baseUrl: 1 });\n`,
  );
  assert.throws(() =>
    execFileSync(process.execPath, [TSC, '-p', join(app, 'tsconfig.json')], { stdio: 'pipe' }),
  );
});
