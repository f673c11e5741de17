/**
 * The CLI contract (design.md): org create / key create print the id / key alone on stdout, and work both
 * with no server and while a server holds the PGlite directory; `check --wait` shows progress and prints
 * the result.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  dropTestSchema,
  sandboxRequest,
  startTestService,
  type TestService,
  testConfig,
} from '../helpers/service.ts';

function elig(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/elig.mjs', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function envOf(config: ReturnType<typeof testConfig>): Record<string, string | undefined> {
  return {
    ELIG_ENV: 'test',
    DATA_DIR: config.dataDir,
    DATABASE_URL: config.databaseUrl ?? '',
    DATABASE_SCHEMA: config.databaseSchema,
    LOG_LEVEL: 'silent',
  };
}

test('without a server: org create then key create, each printing one line', async () => {
  const config = testConfig();
  try {
    const org = await elig(['org', 'create', '--name', 'Cli Clinic'], envOf(config));
    assert.equal(org.code, 0, org.stderr);
    assert.match(org.stdout, /^org_[0-9A-Za-z]{20}\n$/);
    const key = await elig(
      ['key', 'create', '--org', org.stdout.trim(), '--name', 'ci', '--scopes', 'eligibility:read'],
      envOf(config),
    );
    assert.equal(key.code, 0, key.stderr);
    assert.match(key.stdout, /^elig_test_[0-9A-Za-z]{40}\n$/);
    assert.match(key.stderr, /shown only once/);
    const bad = await elig(
      ['key', 'create', '--org', org.stdout.trim(), '--name', 'x', '--scopes', 'admin'],
      envOf(config),
    );
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown scope/);
  } finally {
    await dropTestSchema(config);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

test('while the server holds the store: key create goes through it and the key works', async () => {
  const env = envOf(svc.config);
  const key = await elig(['key', 'create', '--org', svc.organizationId, '--name', 'from cli'], env);
  assert.equal(key.code, 0, key.stderr);
  const res = await client(svc.url, key.stdout.trim()).post(
    '/api/eligibility',
    sandboxRequest(member('SBX1000002')),
  );
  assert.equal(res.status, 202);
  const missing = await elig(['key', 'create', '--org', 'org_doesnotexist', '--name', 'x'], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no organization/);
});

function checkArgs(memberId: string, ...more: string[]): string[] {
  const p = member(memberId);
  return [
    'check',
    '--payer',
    'SANDBOX',
    '--member',
    p.memberId,
    '--first',
    p.firstName,
    '--last',
    p.lastName,
    '--dob',
    p.dateOfBirth,
    '--wait',
    '--url',
    svc.url,
    ...more,
  ];
}

/** Piped (not a terminal): no ANSI escape and no carriage return anywhere. */
function assertPlain(text: string, what: string) {
  const ESC = String.fromCharCode(27);
  assert.ok(!text.includes(ESC) && !text.includes('\r'), `${what} has terminal control characters`);
}

test('check --wait prints plain progress on stderr and a summary for people on stdout', async () => {
  const env = { ...envOf(svc.config), ELIG_API_KEY: svc.apiKey };
  const [active, inactive, failed] = await Promise.all([
    elig(checkArgs('SBX1000001'), env),
    elig(checkArgs('SBX1000003'), env),
    elig(checkArgs('SBX1000067'), env),
  ]);
  assert.equal(active.code, 0, active.stderr);
  assert.match(active.stderr, /COMPLETED after/);
  for (const r of [active, inactive, failed]) {
    assertPlain(r.stdout, 'stdout');
    assertPlain(r.stderr, 'stderr');
  }
  const lines = active.stdout.split('\n');
  assert.match(lines[1]!, /^ACTIVE {2}Coverage active: .+, in network$/, 'the verdict banner first');
  assert.match(active.stdout, /\nPlan\n {2}Payer +\S/);
  assert.match(active.stdout, /\nBenefits\n {2}Service type +Coverage +Copay +Coinsurance +Deductible/);
  const benefitRows = lines.filter((l) =>
    /^ {2}(Preventive Nutrition|Medical Nutrition|Outpatient Physical Therapy|Mental Health|Occupational Therapy|Speech Therapy|Chiropractic) /.test(
      l,
    ),
  );
  assert.equal(benefitRows.length, 7, 'the seven service types');
  assert.match(active.stdout, /\$\d/, 'amounts in dollars');
  assert.doesNotMatch(active.stdout, /^\{/m, 'no JSON');

  assert.equal(inactive.code, 0, inactive.stderr);
  assert.match(inactive.stdout.split('\n')[1]!, /^INACTIVE {2}Coverage INACTIVE since \d{4}-\d{2}-\d{2}$/);
  assert.match(inactive.stdout, /Plan active +No \(inactive\)/);

  assert.equal(failed.code, 2, 'a check that did not complete exits 2');
  assert.match(failed.stdout.split('\n')[1]!, /^FAILED {2}Could not check: /);
  assert.match(failed.stdout, /\nErrors\n {2}67 {2}.+\n {6}Next step: Please Correct and Resubmit/);
  assert.doesNotMatch(failed.stdout, /\nBenefits\n/);
});

test('check --wait: other coverage (SBX1000013, SBX1000014) in the banner and an Other coverage table', async () => {
  const env = { ...envOf(svc.config), ELIG_API_KEY: svc.apiKey };
  const [lucas, ruth, jane] = await Promise.all([
    elig(checkArgs('SBX1000013'), env),
    elig(checkArgs('SBX1000014'), env),
    elig(checkArgs('SBX1000001'), env),
  ]);
  assert.equal(lucas.code, 0, lucas.stderr);
  assert.equal(
    lucas.stdout.split('\n')[1],
    'ACTIVE  Coverage active: Sandbox PPO Gold, in network; another payer is primary: NORTHWIND COMMERCIAL HEALTH (Commercial)',
  );
  assert.match(
    lucas.stdout,
    /\nOther coverage\n {2}Order +Payer +Payer id +Insurance type +Member id +Group +Dates\n.*\n {2}Primary \(pays first\) +NORTHWIND COMMERCIAL HEALTH +NWCH1 +Commercial +NWC4455667 +NW-4410 +coordinationOfBenefits 2026-01-01\n/,
  );
  assert.ok(
    lucas.stdout.indexOf('Other coverage') < lucas.stdout.indexOf('\nBenefits\n'),
    'before the benefits',
  );
  assert.equal(ruth.code, 0, ruth.stderr);
  assert.match(
    ruth.stdout.split('\n')[1]!,
    /another payer is primary: CONTOSO EMPLOYER GROUP HEALTH PLAN \(Medicare Secondary/,
  );
  assert.match(
    ruth.stdout,
    /\n {2}Primary \(pays first\) +CONTOSO EMPLOYER GROUP HEALTH PLAN +CEGHP +Medicare Secondary Working Aged/,
  );
  assert.match(ruth.stdout, /OTHER_COVERAGE: The payer reports other coverage/);
  assert.doesNotMatch(jane.stdout, /Other coverage/);
});

test('check --wait --json prints the API JSON, as before', async () => {
  const res = await elig(checkArgs('SBX1000001', '--json'), {
    ...envOf(svc.config),
    ELIG_API_KEY: svc.apiKey,
  });
  assert.equal(res.code, 0, res.stderr);
  const result = JSON.parse(res.stdout);
  assert.equal(result.status, 'COMPLETED');
  assert.equal(result.verdict.status, 'ACTIVE');
  assert.equal(result.benefits.length, 7);
});

test('on a terminal, progress animates on one line and the banner has colour', async () => {
  const tty = () => {
    let text = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        done();
      },
    });
    return Object.assign(stream, { isTTY: true, text: () => text });
  };
  const stdout = tty();
  const stderr = tty();
  const code = await main([...checkArgs('SBX1000001'), '--key', svc.apiKey], { stdout, stderr });
  assert.equal(code, 0, stderr.text());
  const ESC = String.fromCharCode(27);
  assert.ok(stderr.text().includes(`\r${ESC}[K`), 'the progress line is rewritten in place');
  assert.ok(stdout.text().includes(`${ESC}[1;32mACTIVE  Coverage active`), 'a green banner');
});

test('check without a key explains where to get one', async () => {
  const person = ['--member', 'SBX1000001', '--first', 'JANE', '--last', 'DOE', '--dob', '19800115'];
  const res = await elig(['check', '--payer', 'SANDBOX', ...person, '--url', svc.url], {
    ...envOf(svc.config),
    ELIG_API_KEY: '',
  });
  assert.equal(res.code, 1);
  assert.match(res.stderr, /ELIG_API_KEY/);
});

test('unknown commands print usage and exit 2', async () => {
  const res = await elig(['frobnicate'], envOf(svc.config));
  assert.equal(res.code, 2);
  assert.match(res.stderr, /Usage: elig/);
});

test('user create prints a one-time portal link that works once', async () => {
  // On PostgreSQL no lock file names the server, so operators set PUBLIC_URL; on PGlite the lock does.
  const env = { ...envOf(svc.config), PUBLIC_URL: svc.config.databaseUrl ? svc.url : undefined };
  const res = await elig(
    ['user', 'create', '--org', svc.organizationId, '--email', 'frontdesk@demo-clinic.example'],
    env,
  );
  assert.equal(res.code, 0, res.stderr);
  const link = res.stdout.trim();
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/portal\/login\/[0-9A-Za-z]{40}$/);
  const page = await fetch(link, { redirect: 'manual' });
  assert.ok(page.status < 500, `link answered ${page.status}`);
  const dup = await elig(
    ['user', 'create', '--org', svc.organizationId, '--email', 'frontdesk@demo-clinic.example'],
    env,
  );
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /already exists/);
  const reset = await elig(['user', 'reset-password', '--email', 'frontdesk@demo-clinic.example'], env);
  assert.equal(reset.code, 0, reset.stderr);
  assert.notEqual(reset.stdout.trim(), link);
});

test('user create without PUBLIC_URL or a running server says the link address is a guess', async () => {
  const config = testConfig();
  try {
    const env = envOf(config);
    const org = await elig(['org', 'create', '--name', 'Link Clinic'], env);
    assert.equal(org.code, 0, org.stderr);
    const res = await elig(['user', 'create', '--org', org.stdout.trim(), '--email', 'it@link.example'], {
      ...env,
      PUBLIC_URL: undefined,
    });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /set PUBLIC_URL/);
  } finally {
    rmSync(config.dataDir, { recursive: true, force: true });
    await dropTestSchema(config);
  }
});

test('check --wait --charge: the summary says what to collect, each step readable, in the order given', async () => {
  const env = { ...envOf(svc.config), ELIG_API_KEY: svc.apiKey };
  const r = await elig(
    checkArgs('SBX1000001', '--charge', 'MH=120', '--charge', 'AD=800', '--charge', 'Chiropractic=60'),
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Collect at desk/);
  assert.match(
    r.stdout,
    /Mental Health \(MH\): \$120\.00 allowed\n {4}Patient pays \$25\.00, plan pays \$95\.00/,
  );
  assert.match(r.stdout, /\+ \$500\.00 {2}toward the deductible/);
  assert.match(r.stdout, /\+ \$60\.00 {2}coinsurance 20% of \$300\.00 = \$60\.00/);
  assert.match(r.stdout, /Collect \$600\.00 \(plan pays \$380\.00\)/);
  const bad = await elig(checkArgs('SBX1000001', '--charge', 'MH'), env);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--charge MH: write it STC=AMOUNT/);
});
