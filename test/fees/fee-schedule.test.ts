/**
 * The fee schedule CSV (src/fees/fee-schedule.ts) and its table (src/store/fee-schedule.ts), on the store
 * of this test run (PGlite, or PostgreSQL with DATABASE_URL): bad rows listed by line and nothing applied;
 * a good file replaces the schedule whole.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFeeOp } from '../../src/fees/admin.ts';
import { importFeeSchedule, readFeeScheduleCsv } from '../../src/fees/fee-schedule.ts';
import { countFees, findFees, listFees } from '../../src/store/fee-schedule.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test('a good file: codes upper-cased, a $ allowed, payer_id optional (empty: every payer)', async () => {
  const read = await readFeeScheduleCsv(
    'procedure_code,payer_id,allowed_amount\r\n97110,,45\r\ng0270,SANDBOX,$120.5\r\n\r\n90837,,150.00\r\n',
  );
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.rows, [
    { procedureCode: '97110', payerId: '', amountCents: 4500 },
    { procedureCode: 'G0270', payerId: 'SANDBOX', amountCents: 12050 },
    { procedureCode: '90837', payerId: '', amountCents: 15000 },
  ]);
  const noPayerColumn = await readFeeScheduleCsv('allowed_amount,procedure_code\n45,97110\n');
  assert.deepEqual(noPayerColumn.rows, [{ procedureCode: '97110', payerId: '', amountCents: 4500 }]);
});

test('bad rows are each named by line; nothing else is said about their values', async () => {
  const read = await readFeeScheduleCsv(
    [
      'procedure_code,payer_id,allowed_amount',
      '97110,,45', // line 2: good
      '97110,,50', // 3: a repeat
      '97-110,,45', // 4
      '97112,,12.345', // 5
      '97113,,=1+1', // 6: formula
      '97114,bad payer,10', // 7
      '97115,,2000000', // 8
      '97116,10', // 9: too few fields
      '@SUM(A1),,1', // 10: formula
    ].join('\n'),
  );
  assert.deepEqual(
    read.problems.map((p) => p.line),
    [3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.match(read.problems[0]!.message, /repeats procedure code 97110 of line 2/);
  assert.match(read.problems[3]!.message, /spreadsheet formula/);
  assert.equal(read.problemCount, 8);
});

test('a header without the columns, or an empty file: one problem, on line 1', async () => {
  assert.match(
    (await readFeeScheduleCsv('code,amount\n1,2\n')).problems[0]!.message,
    /missing column procedure_code, allowed_amount/,
  );
  assert.match((await readFeeScheduleCsv('')).problems[0]!.message, /the file is empty/);
});

test('import: a file with one bad row changes nothing; a good one replaces the whole schedule', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  assert.deepEqual(await importFeeSchedule(db, org, 'procedure_code,allowed_amount\n97110,45\n97530,60\n'), {
    ok: true,
    rows: 2,
  });
  const refused = await importFeeSchedule(db, org, 'procedure_code,allowed_amount\n90837,150\n97110,x\n');
  assert.equal(refused.ok, false);
  assert.deepEqual(
    (await listFees(db, org, 10)).map((r) => r.procedureCode),
    ['97110', '97530'],
    'never half-applied',
  );
  await importFeeSchedule(db, org, 'procedure_code,payer_id,allowed_amount\n90837,,150\n90837,SANDBOX,140\n');
  assert.equal(await countFees(db, org), 2);
  assert.deepEqual(
    (await findFees(db, org, ['90837', '97110']))
      .map((r) => [r.procedureCode, r.payerId, r.amountCents])
      .sort(),
    [
      ['90837', '', 15000],
      ['90837', 'SANDBOX', 14000],
    ],
  );
});

test("one organization's schedule is not another's", async () => {
  const { db } = store;
  const a = await newOrganization(db);
  const b = await newOrganization(db);
  await importFeeSchedule(db, a, 'procedure_code,allowed_amount\n97110,45\n');
  assert.deepEqual(await findFees(db, b, ['97110']), []);
  assert.equal(await countFees(db, b), 0);
});

test('the admin operations: import names bad lines and changes nothing; show lists the rows', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await assert.rejects(
    runFeeOp(db, 'fees.import', { org, csv: 'procedure_code,allowed_amount\n97110,abc\n' }),
    /not changed: 1 bad row \(line 2: allowed_amount must be dollars/,
  );
  assert.deepEqual(
    await runFeeOp(db, 'fees.import', { org, csv: 'procedure_code,allowed_amount\n97110,45\n' }),
    {
      rows: 1,
    },
  );
  assert.deepEqual(await runFeeOp(db, 'fees.show', { org }), {
    total: 1,
    rows: [{ procedureCode: '97110', payerId: '', allowedAmount: 45 }],
  });
  await assert.rejects(runFeeOp(db, 'fees.show', { org: 'no-such-org' }), /no organization with id/);
});
