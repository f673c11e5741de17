/**
 * `elig discover` (docs/discovery.md): insurance discovery from the command line, through the API. With
 * --wait it prints the coverages found (exit 0) or that none was (exit 2); --json prints the API's answer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eligInProcess } from '../helpers/cli.ts';
import { member } from '../helpers/members.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

const person = (p: { firstName: string; lastName: string; dateOfBirth: string }) => [
  '--first',
  p.firstName,
  '--last',
  p.lastName,
  '--dob',
  p.dateOfBirth,
];
const target = () => ['--url', svc.url, '--key', svc.apiKey];

test('--wait finds a sandbox member by name and date of birth and names the check', async () => {
  const res = await eligInProcess('discover', ...person(JANE), '--wait', ...target());
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /1 coverage found among 1 payer asked/);
  assert.match(res.stdout, /ACTIVE\s+SANDBOX \(Sandbox Health Plan\): Coverage active/);
  const checkId = /check ([0-9a-f-]{36})/.exec(res.stdout)?.[1];
  assert.ok(checkId, res.stdout);
  const check = await fetch(`${svc.url}/api/eligibility/${checkId}/status`, {
    headers: { authorization: `Key ${svc.apiKey}` },
  }).then((r) => r.json());
  assert.equal(check.subscriber.memberId, JANE.memberId);
});

test('--json prints the discovery as the API answers it; nobody found exits 2', async () => {
  const res = await eligInProcess(
    'discover',
    ...person({ ...JANE, firstName: 'NOBODY' }),
    '--wait',
    '--json',
    ...target(),
  );
  assert.equal(res.code, 2, res.stderr);
  const body = JSON.parse(res.stdout);
  assert.equal(body.status, 'COMPLETED');
  assert.deepEqual(body.coverages, []);
  assert.deepEqual(body.progress, { asked: 1, answered: 1 });
});

test('without --wait: the 202 answer; a refused request names the problem', async () => {
  const res = await eligInProcess('discover', ...person(JANE), '--payers', 'SANDBOX', ...target());
  assert.equal(res.code, 0, res.stderr);
  assert.equal(JSON.parse(res.stdout).status, 'IN_PROGRESS');
  const bad = await eligInProcess('discover', ...person(JANE), '--payers', 'NOPE', ...target());
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    /API answered 400 ValidationException: .*payers\[0\] is not a payer of the directory/,
  );
});
