/**
 * `elig payer list`: the directory from the configuration and PAYERS_FILE (no server, no store, no
 * secrets needed), as a table or as GET /api/payers' JSON; an invalid file exits 1 naming its problems.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { payersFixture } from '../helpers/payers-file.ts';

const fixture = payersFixture();
after(() => rmSync(fixture.dir, { recursive: true, force: true }));

function elig(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/elig.mjs', ...args], {
      // No secrets in the environment, and a data directory that does not exist: neither is needed.
      env: { PATH: process.env.PATH, ELIG_RUNTIME: 'tsx', DATA_DIR: join(fixture.dir, 'no-data'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test('a table of the sandbox and the file, without a server or the secrets', async () => {
  const { code, stdout, stderr } = await elig(['payer', 'list'], { PAYERS_FILE: fixture.path });
  assert.equal(code, 0, stderr);
  assert.equal(
    stdout,
    [
      'ID           NAME                       CONNECTOR       ALIASES',
      'SANDBOX      Sandbox Health Plan        sandbox',
      'ACME         Acme Health Plan           caqh-core-soap  87726, ACME-OLD',
      'CIGNA-STEDI  Cigna (via clearinghouse)  x12-json',
      'LOCKEDOUT    Locked Out Mutual          x12-json',
      '',
    ].join('\n'),
  );
});

test('--json prints what GET /api/payers answers; SANDBOX_ENABLED=0 drops the sandbox', async () => {
  const { code, stdout } = await elig(['payer', 'list', '--json'], {
    PAYERS_FILE: fixture.path,
    SANDBOX_ENABLED: '0',
  });
  assert.equal(code, 0);
  const body = JSON.parse(stdout);
  assert.deepEqual(
    body.payers.map((p: { id: string }) => p.id),
    ['ACME', 'CIGNA-STEDI', 'LOCKEDOUT'],
  );
  assert.deepEqual(body.payers[0], {
    id: 'ACME',
    name: 'Acme Health Plan',
    aliases: ['87726', 'ACME-OLD'],
    connectorType: 'caqh-core-soap',
  });
  for (const url of fixture.urls) assert.ok(!stdout.includes(new URL(url).host));
  for (const secret of fixture.secrets) assert.ok(!stdout.includes(secret));
});

test('--q ranks as GET /api/payers?q= does (a typo forgiven); --limit caps; a bad --limit is a usage error', async () => {
  const ids = async (...args: string[]) => {
    const { code, stdout, stderr } = await elig(['payer', 'list', '--json', ...args], {
      PAYERS_FILE: fixture.path,
    });
    assert.equal(code, 0, stderr);
    return JSON.parse(stdout).payers.map((p: { id: string }) => p.id);
  };
  assert.deepEqual(await ids('--q', 'acme helth'), ['ACME']);
  assert.deepEqual(await ids('--q', 'health plan', '--limit', '1'), ['SANDBOX']);
  const bad = await elig(['payer', 'list', '--limit', '0'], { PAYERS_FILE: fixture.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--limit must be a whole number of at least 1/);
});

test('without PAYERS_FILE: the sandbox alone', async () => {
  const { code, stdout } = await elig(['payer', 'list', '--json'], {});
  assert.equal(code, 0);
  assert.deepEqual(
    JSON.parse(stdout).payers.map((p: { id: string }) => p.id),
    ['SANDBOX'],
  );
});

test('an invalid file: exit 1, every problem on stderr, nothing on stdout', async () => {
  const bad = join(fixture.dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({
      payers: [
        { id: 'A', name: 'A', payerId: 'A', connector: { type: 'x12-json', url: 'nope', auth: {} } },
        { id: 'A', name: 'B', payerId: 'B', connector: { type: 'caqh-core-soap', url: 'https://b.test' } },
      ],
    }),
  );
  const { code, stdout, stderr } = await elig(['payer', 'list'], { PAYERS_FILE: bad });
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /^elig: Invalid payers file .*bad\.json:/);
  assert.match(stderr, /payers\[0\]\.connector\.url has an invalid format/);
  assert.match(
    stderr,
    /payers\[0\]\.connector\.auth\.type must be one of api-key, oauth2-client-credentials/,
  );
  assert.match(stderr, /payers\[1\]\.id "A" is also the id or alias of payers\[0\]/);
});

test('without or with an unknown sub-command it says how to use it (a usage error: exit 2)', async () => {
  const bare = await elig(['payer'], {});
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /payer needs a subcommand: payer list/);
  const unknown = await elig(['payer', 'show'], {});
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /payer list/);
});

test('elig serve with a payer credential missing stops at start, naming the reference, never a value', async () => {
  const { code, stdout, stderr } = await elig(['serve'], {
    PAYERS_FILE: fixture.path,
    PORT: '0',
    // One of the four: the others are missing.
    TEST_CORE_USER: fixture.env.TEST_CORE_USER!,
  });
  assert.equal(code, 1);
  assert.equal(stdout, '', 'nothing started');
  assert.match(
    stderr,
    /payers\[0\]\.connector\.password: environment variable TEST_CORE_PASSWORD is not set/,
  );
  assert.match(
    stderr,
    /payers\[2\]\.connector\.auth\.clientId: environment variable TEST_OPTUM_ID is not set/,
  );
  for (const secret of fixture.secrets) assert.ok(!stderr.includes(secret));
});

test('an imported clearinghouse list is listed: `elig payer import` then `elig payer list` read the shared directory', async () => {
  const dir = join(fixture.dir, 'imported');
  mkdirSync(dir);
  const file = join(dir, 'payers.json');
  writeFileSync(
    file,
    JSON.stringify({
      connections: {
        ch: {
          type: 'x12-json',
          url: 'https://ch.invalid/x12',
          auth: { type: 'api-key', key: { env: 'CH_KEY' } },
        },
      },
      payers: [{ id: 'OWN', name: 'Own Direct Plan', payerId: 'OWN01', connection: 'ch' }],
    }),
  );
  const list = join(dir, 'list.csv');
  writeFileSync(
    list,
    'Payer ID,Payer Name,Eligibility\nCH001,Prairie Mutual Health,Y\nCH002,Coastal Care Plan,Y\n',
  );
  const env = { PAYERS_FILE: file, DATA_DIR: join(dir, 'data'), CH_KEY: 'ch-secret-9931' };
  // Before any store exists: the file alone.
  const before = await elig(['payer', 'list', '--json'], env);
  assert.equal(before.code, 0, before.stderr);
  assert.deepEqual(
    JSON.parse(before.stdout).payers.map((p: { id: string }) => p.id),
    ['SANDBOX', 'OWN'],
  );
  const imported = await elig(['payer', 'import', list, '--connection', 'ch'], env);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /the directory now holds 4 payers/);
  const after = await elig(['payer', 'list', '--json'], env);
  assert.equal(after.code, 0, after.stderr);
  assert.deepEqual(
    JSON.parse(after.stdout).payers.map((p: { id: string }) => p.id),
    ['SANDBOX', 'OWN', 'CH001', 'CH002'],
  );
  const found = await elig(['payer', 'list', '--q', 'prairie'], env);
  assert.match(found.stdout.split('\n')[1] ?? '', /^CH001\s+Prairie Mutual Health\s+x12-json/);
  // While a server holds the PGlite data directory, the list comes from that server's directory.
  const server = spawn(process.execPath, ['bin/elig.mjs', 'serve'], {
    env: { PATH: process.env.PATH, ELIG_RUNTIME: 'tsx', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let started = '';
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (d) => {
        started += d;
        if (/OpenAPI:/.test(started)) resolve();
      });
      server.once('exit', (code) => reject(new Error(`elig serve exited ${code}`)));
    });
    const live = await elig(['payer', 'list', '--json'], env);
    assert.equal(live.code, 0, live.stderr);
    assert.deepEqual(
      JSON.parse(live.stdout).payers.map((p: { id: string }) => p.id),
      ['SANDBOX', 'OWN', 'CH001', 'CH002'],
    );
    // Credentials are references: the secret is in no output.
    for (const out of [imported, after, found, live]) {
      assert.ok(!`${out.stdout}${out.stderr}`.includes('ch-secret-9931'));
    }
  } finally {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
});
