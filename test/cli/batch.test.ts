/**
 * `elig batch submit` and `elig batch results` against a running service: the CSV template round trip
 * (schedule in, one result row per check out), malformed rows reported by line, JSON input.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseCsvRows, parseScheduleCsv, RESULT_COLUMNS } from '../../src/batches/csv.ts';
import { progressLine } from '../../src/cli/commands/batch.ts';
import { eligInProcess } from '../helpers/cli.ts';
import { member } from '../helpers/members.ts';
import { sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const TEMPLATE = new URL('../../examples/batch.example.csv', import.meta.url);
let svc: TestService;
let dir: string;
before(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'elig-batch-cli-'));
});
after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = () => ['--url', svc.url, '--key', svc.apiKey];

test('the template CSV round trip: submit --wait, then results --csv with one row per check', async () => {
  const submitted = await eligInProcess(
    'batch',
    'submit',
    TEMPLATE.pathname,
    '--wait',
    '--name',
    'template',
    ...api(),
  );
  assert.equal(submitted.code, 0, submitted.stderr);
  const summary = JSON.parse(submitted.stdout);
  assert.equal(summary.status, 'COMPLETED');
  assert.equal(summary.counts.total, 3);
  assert.match(submitted.stderr, /\] 3\/3 {2}ACTIVE \d+ INACTIVE \d+ UNDETERMINED \d+ FAILED \d+/);
  const results = await eligInProcess('batch', 'results', summary.id, '--csv', ...api());
  assert.equal(results.code, 0, results.stderr);
  const rows = parseCsvRows(results.stdout);
  assert.deepEqual(rows[0]!.fields, [...RESULT_COLUMNS]);
  assert.equal(rows.length, 4, 'a header and one row per check');
  const col = (name: string) => RESULT_COLUMNS.indexOf(name);
  const jane = rows[1]!.fields;
  assert.equal(jane[col('verdict')], 'ACTIVE');
  assert.equal(jane[col('plan')], 'Sandbox PPO Gold');
  assert.notEqual(jane[col('outpatient_physical_therapy_copay')], undefined);
  assert.equal(rows[3]!.fields[col('verdict')], 'INACTIVE', 'the third template row is an inactive member');
  assert.equal(RESULT_COLUMNS.length, 7 + 7 * 6, 'six columns for each of the seven service types');
});

test('malformed rows are reported by line; the rest are submitted', async () => {
  const file = join(dir, 'schedule.csv');
  const template = readFileSync(TEMPLATE, 'utf8').trimEnd().split('\n');
  writeFileSync(
    file,
    [
      template[0],
      template[1],
      'SANDBOX,SBX1000002,JOHN', // line 3: too few fields
      'SANDBOX,SBX1000002,JOHN,SMITH,19750704,1234567890,Demo Clinic,,', // line 4: bad NPI check digit
      template[2],
    ].join('\n'),
  );
  const res = await eligInProcess('batch', 'submit', file, ...api());
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, /line 3: 3 fields where the header names 9/);
  assert.match(res.stderr, /line 4: Invalid request: .*npi/i);
  assert.equal(JSON.parse(res.stdout).counts.total, 2);
});

test('a JSON list of submit bodies is a batch too', async () => {
  const file = join(dir, 'checks.json');
  writeFileSync(file, JSON.stringify([sandboxRequest(member('SBX1000001'))]));
  const res = await eligInProcess('batch', 'submit', file, '--wait', ...api());
  assert.equal(res.code, 0, res.stderr);
  assert.equal(JSON.parse(res.stdout).counts.COMPLETED, 1);
});

test('the schedule parser: quoted fields, CRLF, a missing column named', () => {
  const parsed = parseScheduleCsv(
    'payer,member_id,first_name,last_name,date_of_birth,provider_npi,provider_name\r\nSANDBOX,M1,"ANN, JR","O""NEIL",19800101,1234567893,"Clinic, Inc"\r\n',
  );
  assert.deepEqual(parsed.problems, []);
  assert.deepEqual((parsed.checks[0] as { subscriber: unknown }).subscriber, {
    memberId: 'M1',
    firstName: 'ANN, JR',
    lastName: 'O"NEIL',
    dateOfBirth: '19800101',
  });
  assert.deepEqual(parseScheduleCsv('payer,member_id\nSANDBOX,M1\n').problems[0]?.line, 1);
});

test('the progress line: done/total, by verdict, rate and time left', () => {
  const line = progressLine(
    {
      id: 'b',
      name: null,
      status: 'IN_PROGRESS',
      createdAt: '',
      completedAt: null,
      counts: { total: 100, rejected: 0, IN_PROGRESS: 50, COMPLETED: 45, FAILED: 5 },
      verdicts: { ACTIVE: 40, INACTIVE: 3, UNDETERMINED: 2, FAILED: 5 },
      progress: 0.5,
    },
    10,
  );
  assert.equal(
    line,
    '[##########----------] 50/100  ACTIVE 40 INACTIVE 3 UNDETERMINED 2 FAILED 5  5.0/s  10s left',
  );
});
