/**
 * Each command takes its own options: another command's option, a missing required option or an unknown
 * command is a usage error (exit 2, the command's usage on stderr, nothing on stdout, nothing done), and
 * `elig <command> --help` lists that command's options only. Usage errors are found before any
 * configuration is read or store opened, so these run in-process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eligInProcess as elig } from '../helpers/cli.ts';

/** The options (`--name`, …) listed under "Options:" in a help text. */
const optionsOf = (help: string) =>
  [...help.split('Options:')[1]!.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]);

test('org create refuses --dob, an option of check: exit 2 with a clear message', async () => {
  const res = await elig('org', 'create', '--name', 'Clinic', '--dob', 'x');
  assert.equal(res.code, 2);
  assert.equal(res.stdout, '');
  assert.match(res.stderr, /^elig org create: unknown option --dob\n/);
  assert.match(res.stderr, /Usage: elig org create --name NAME\n/);
  assert.match(res.stderr, /elig org create --help/);
});

test('every usage error exits 2 and says what is wrong', async () => {
  const cases: [string[], RegExp][] = [
    [['org', 'create'], /elig org create: --name is required/],
    [['org', 'create', '--name'], /elig org create: --name needs a value/],
    [['key', 'create', '--org', 'org_x', '--name', 'ci', '--wait'], /elig key create: unknown option --wait/],
    [['webhook', 'show', '--org', 'org_x', '--url', 'https://a.example'], /unknown option --url/],
    [['user', 'reset-password', '--email', 'a@b.example', '--org', 'org_x'], /unknown option --org/],
    [['check', '--payer', 'SANDBOX', '--member', 'M1', '--first', 'A', '--last', 'B'], /--dob is required/],
    [['serve', '--name', 'x'], /elig serve: unknown option --name/],
    [['org', 'create', 'extra', '--name', 'x'], /elig org create: unexpected argument extra/],
    [['x12', 'parse'], /elig x12 parse: FILE is required/],
    [
      ['webhook', 'set', '--org', 'org_x', '--secret', 's'.repeat(30), '--generate-secret'],
      /either --secret/,
    ],
    [['org'], /elig: org needs a subcommand: org create, org list/],
    [['frobnicate'], /elig: unknown command: frobnicate/],
  ];
  for (const [argv, message] of cases) {
    const res = await elig(...argv);
    assert.equal(res.code, 2, argv.join(' '));
    assert.match(res.stderr, message, argv.join(' '));
    assert.equal(res.stdout, '', argv.join(' '));
  }
});

test("each command's --help lists only its own options", async () => {
  const orgCreate = await elig('org', 'create', '--help');
  assert.equal(orgCreate.code, 0);
  assert.match(orgCreate.stdout, /^Usage: elig org create --name NAME\n/);
  assert.deepEqual(optionsOf(orgCreate.stdout), ['--name', '--help']);

  const keyCreate = await elig('key', 'create', '-h');
  assert.deepEqual(optionsOf(keyCreate.stdout), ['--org', '--name', '--scopes', '--mode', '--help']);

  const check = await elig('help', 'check');
  assert.equal(check.code, 0);
  assert.deepEqual(optionsOf(check.stdout), [
    '--payer',
    '--member',
    '--first',
    '--last',
    '--dob',
    '--stc',
    '--dos',
    '--charge',
    '--npi',
    '--provider',
    '--wait',
    '--json',
    '--timeout',
    '--key',
    '--url',
    '--help',
  ]);
  assert.match(check.stdout, /--dob YYYYMMDD +the subscriber's date of birth \(required\)/);
  assert.match(check.stdout, /--wait +show progress \(stderr\) until the result, then print a summary/);
  assert.match(check.stdout, /--json +print the API's JSON instead of the summary/);

  const serve = await elig('serve', '--help');
  assert.deepEqual(optionsOf(serve.stdout), ['--help']);
});

test('elig --help lists every command with its options', async () => {
  const res = await elig('--help');
  assert.equal(res.code, 0);
  for (const line of [
    /^ {2}org create --name NAME +create an organization; prints its id$/m,
    /^ {2}key create --org ID --name NAME \[--scopes LIST\] \[--mode test\|live\]$/m,
    /^ {2}webhook set --org ID \[--url URL\|none\] \[--secret SECRET\] \[--generate-secret\]$/m,
    /^ {2}user reset-password --email EMAIL$/m,
    /^ {2}x12 parse FILE \[--raw\] +print a 271 file/m,
  ]) {
    assert.match(res.stdout, line);
  }
});
