/**
 * Payer list import: CSV (BOM, CRLF, quotes, embedded commas and line breaks, synonyms, an explicit column
 * mapping, tabs), JSON arrays of objects, Stedi's List Payers records, and every problem named at once
 * with its row and column, capped.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeProblems, importPayerList, parseColumnMapping } from '../../src/payers/import.ts';

const CONNECTION = 'stedi';
const imported = (text: string, options = {}) =>
  importPayerList(text, { connection: CONNECTION, ...options });

describe('payer list import: CSV', () => {
  test('header synonyms, BOM, CRLF, quoted fields with commas, quotes and line breaks', () => {
    const csv =
      '\uFEFFPayer ID,Payer Name,Aliases,270 Supported,Enrollment Required,States,Claims\r\n' +
      '60054,"Aetna, Inc.","AETNA;AET|60054",Y,N,CA;NV,Y\r\n' +
      '87726,"UnitedHealthcare ""UHC""",,yes,,all,N\r\n' +
      '\r\n' +
      'BCSNC,"Blue Cross\r\nBlue Shield NC",BCBS-NC,true,required,NC,Y\r\n';
    const result = imported(csv);
    assert.deepEqual(result.problems, []);
    assert.equal(result.format, 'csv');
    assert.deepEqual(result.ignoredColumns, ['Claims']);
    assert.deepEqual(result.entries, [
      {
        id: '60054',
        name: 'Aetna, Inc.',
        payerId: '60054',
        aliases: ['AETNA', 'AET'],
        eligibility: true,
        enrollment: 'not-required',
        states: ['CA', 'NV'],
        connection: CONNECTION,
      },
      {
        id: '87726',
        name: 'UnitedHealthcare "UHC"',
        payerId: '87726',
        eligibility: true,
        connection: CONNECTION,
      },
      {
        id: 'BCSNC',
        name: 'Blue Cross Blue Shield NC',
        payerId: 'BCSNC',
        aliases: ['BCBS-NC'],
        eligibility: true,
        enrollment: 'required',
        states: ['NC'],
        connection: CONNECTION,
      },
    ]);
  });

  test('snake_case and camelCase headers, a separate NM109 column, a failover connection list', () => {
    const csv = 'payer_id,payer_name,nm109,eligibility\nAETNA,Aetna,60054,false\n';
    const result = importPayerList(csv, { connection: ['stedi', 'availity'] });
    assert.deepEqual(result.entries, [
      { id: 'AETNA', name: 'Aetna', payerId: '60054', eligibility: false, connection: ['stedi', 'availity'] },
    ]);
  });

  test('an explicit column mapping, as --columns writes it', () => {
    const csv = 'PayerID,Payer Name,Elig,Enroll\n00001,First Payer,Y,Y\n';
    const result = imported(csv, {
      columns: 'id=PayerID, name=Payer Name,eligibility=Elig,enrollment=Enroll',
    });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.entries[0], {
      id: '00001',
      name: 'First Payer',
      payerId: '00001',
      eligibility: true,
      enrollment: 'required',
      connection: CONNECTION,
    });
    assert.deepEqual(parseColumnMapping('id=A,colour=B,name'), {
      columns: { id: 'A' },
      problems: [
        '"colour" is not a field (id, name, payerId, aliases, eligibility, enrollment, states)',
        '"name" is not field=column',
      ],
    });
  });

  test('--only keeps the eligibility rows of a list with one row per payer and transaction', () => {
    const csv = [
      'Payer ID,Payer Name,Transaction,Enrollment Required',
      '12345,Some Payer,837P,Y',
      '12345,Some Payer,270/271,N',
      '67890,Other Payer,835,Y',
      '67890,Other Payer,Eligibility (270),N',
    ].join('\n');
    const result = imported(csv, { only: 'transaction=270/271|Eligibility (270)' });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.enrollment]),
      [
        ['12345', 'not-required'],
        ['67890', 'not-required'],
      ],
    );
    assert.deepEqual(
      result.skipped.map((s) => [s.row, s.reason]),
      [
        [2, 'filtered'],
        [4, 'filtered'],
      ],
    );
    assert.deepEqual(result.ignoredColumns, []);
    assert.deepEqual(describeProblems(imported(csv, { only: 'Kind=270' })), [
      'line 1, column "Kind": the header has no column "Kind" (for --only)',
    ]);
    assert.deepEqual(describeProblems(imported(csv, { only: 'no equals sign' })), [
      'options, "only": "no equals sign" is not column=value|value',
    ]);
  });

  test('a semicolon-separated list, and text after a closing quote, are read', () => {
    const result = imported('id;name;aliases\nA1;"Payer; One" Inc;X1|X2\n');
    assert.deepEqual(result.entries[0], {
      id: 'A1',
      name: 'Payer; One Inc',
      payerId: 'A1',
      aliases: ['X1', 'X2'],
      connection: CONNECTION,
    });
  });

  test('a tab-separated list is read by its header', () => {
    const result = imported('Payer ID\tPayer Name\tAliases\n12345\tSome Payer, Inc.\tA1|A2\n');
    assert.deepEqual(result.entries[0]!.aliases, ['A1', 'A2']);
    assert.equal(result.entries[0]!.name, 'Some Payer, Inc.');
  });

  test('names lose X12 delimiters and are cut to 60 characters', () => {
    const long = 'A'.repeat(70);
    const result = imported(`id,name\nP1,"Aetna: Medicare*Plan ~ HMO"\nP2,${long}\n`);
    assert.equal(result.entries[0]!.name, 'Aetna Medicare Plan HMO');
    assert.equal(result.entries[1]!.name, 'A'.repeat(60));
  });
});

describe('payer list import: problems', () => {
  test('every problem of every row at once, with its line and column; bad rows are skipped', () => {
    const csv = [
      'Payer ID,Payer Name,270,States,Aliases',
      'GOOD1,Good Payer,Y,CA,',
      'bad id!,Bad Id,Y,,',
      'NONAME,,maybe,XX;CA,',
      'STATES,Payer,N,ZZ;QQ;CA;YY;WW,bad alias',
      'GOOD2,Other,,,GOOD1',
      'GOOD1,Duplicate,,,',
    ].join('\n');
    const result = imported(csv);
    assert.deepEqual(
      result.entries.map((e) => e.id),
      ['GOOD1'],
    );
    assert.deepEqual(describeProblems(result), [
      'line 3, column "Payer ID": "bad id!" is not a payer id: 1–50 letters, digits, ".", "_" or "-", starting with a letter or digit',
      'line 4, column "Payer Name": the payer name is empty',
      'line 4, column "270": "maybe" is not a yes/no value (Y/N, yes/no, true/false, SUPPORTED/NOT_SUPPORTED)',
      'line 4, column "States": "XX" is not a US state code',
      'line 5, column "Aliases": "bad alias" is not a payer id (letters, digits, ".", "_", "-")',
      'line 5, column "States": "ZZ", "QQ", "YY" and 1 more are not a US state code',
      'line 6, column "Aliases": "GOOD1" is already the id of the payer on line 2',
      'line 7, column "Payer ID": "GOOD1" is already the id of the payer on line 2',
    ]);
    assert.equal(result.problemCount, 8);
    assert.deepEqual(
      result.skipped.map((s) => [s.row, s.reason]),
      [3, 4, 5, 6, 7].map((row) => [row, 'problem']),
    );
  });

  test('an alias claimed twice is a problem of the later row', () => {
    const result = imported('id,name,aliases\nA,Payer A,SHARED\nB,Payer B,SHARED;OWN\n');
    assert.deepEqual(describeProblems(result), [
      'line 3, column "aliases": "SHARED" is already the alias of the payer on line 2',
    ]);
    assert.deepEqual(
      result.entries.map((e) => e.id),
      ['A'],
    );
  });

  test('the problem list is capped, the total kept, and the rest counted in one line', () => {
    const rows = Array.from({ length: 200 }, (_, i) => `P${i},`);
    const result = imported(['id,name', ...rows].join('\n'), { maxProblems: 10 });
    assert.equal(result.problems.length, 10);
    assert.equal(result.problemCount, 200);
    const lines = describeProblems(result);
    assert.equal(lines.length, 11);
    assert.equal(lines.at(-1), '… and 190 more problems');
  });

  test('no id or name column: the header problem names the synonyms and the mapping option', () => {
    const result = imported('Code,Description\n1,x\n');
    assert.deepEqual(describeProblems(result), [
      'line 1: no id column: name one id, payerid, tradingpartnerid, tradingpartnerserviceid…, or map it with --columns id=<header>',
      'line 1: no name column: name one name, payername, displayname, payer…, or map it with --columns name=<header>',
    ]);
    assert.deepEqual(result.ignoredColumns, ['Code', 'Description']);
  });

  test('a mapped header that is not in the file, an unclosed quote, an empty file, no connection', () => {
    assert.deepEqual(describeProblems(imported('PayerID,Name\n1,x\n', { columns: 'id=Payer Number' })), [
      'line 1, column "Payer Number": the header has no column "Payer Number" (for id)',
    ]);
    assert.deepEqual(describeProblems(imported('id,name\nA,"Never closed\nB,b\n')), [
      'line 2: a quote is never closed',
    ]);
    assert.deepEqual(describeProblems(imported('')), [
      'file: it is empty: a header row and one row per payer are expected',
    ]);
    assert.deepEqual(describeProblems(importPayerList('id,name\nA,a\n', { connection: '' })), [
      'options, "connection": no connection named: give --connection NAME',
    ]);
  });
});

describe('payer list import: JSON', () => {
  test('an array of objects with the CSV keys; booleans, numbers and lists as JSON values', () => {
    const json = JSON.stringify([
      {
        payer_id: 60054,
        payer_name: 'Aetna',
        aliases: ['AETNA', '60054'],
        eligibility: true,
        states: ['ca', 'nv'],
      },
      { id: 'UHC', name: 'UnitedHealthcare', aliases: 'UHC1|UHC2', enrollmentRequired: 'Y', extra: 1 },
    ]);
    const result = imported(json);
    assert.equal(result.format, 'json');
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.entries, [
      {
        id: '60054',
        name: 'Aetna',
        payerId: '60054',
        aliases: ['AETNA'],
        eligibility: true,
        states: ['CA', 'NV'],
        connection: CONNECTION,
      },
      {
        id: 'UHC',
        name: 'UnitedHealthcare',
        payerId: 'UHC',
        aliases: ['UHC1', 'UHC2'],
        enrollment: 'required',
        connection: CONNECTION,
      },
    ]);
  });

  test('{"payers": [...]} with a column mapping; wrong types and non-objects are problems', () => {
    const json = JSON.stringify({
      payers: [{ Code: 'A1', Label: 'Payer A' }, { Code: { x: 1 }, Label: 'B' }, 'oops'],
    });
    const result = imported(json, { columns: { id: 'Code', name: 'Label' } });
    assert.deepEqual(
      result.entries.map((e) => e.id),
      ['A1'],
    );
    assert.deepEqual(describeProblems(result), [
      'item 2, column "Code": is not text, a number, true/false or a list',
      'item 3: is "\\"oops\\"", not an object',
      'item 2, column "id": the payer id is empty',
    ]);
  });

  test('--only on JSON items, by key', () => {
    const json = JSON.stringify([
      { id: 'A', name: 'A', transaction: '270' },
      { id: 'A', name: 'A', transaction: '837P' },
      { id: 'B', name: 'B' },
    ]);
    const result = imported(json, { only: { column: 'Transaction', values: ['270'] } });
    assert.deepEqual(
      result.entries.map((e) => e.id),
      ['A'],
    );
    assert.deepEqual(
      result.skipped.map((s) => s.row),
      [2, 3],
    );
  });

  test('broken JSON is one problem, not a throw', () => {
    const result = imported('[{"id": "A", ');
    assert.equal(result.entries.length, 0);
    assert.equal(result.problems.length, 1);
    assert.match(describeProblems(result)[0]!, /^file: not valid JSON/);
  });
});

describe('payer list import: Stedi List Payers', () => {
  const stedi = JSON.stringify({
    items: [
      {
        stediId: 'UPICO',
        displayName: 'Blue Cross Blue Shield of North Carolina',
        primaryPayerId: 'BCSNC',
        aliases: ['1411', '560894904', 'BCBS-NC', 'BCSNC', 'NCBCBS'],
        names: ['Blue Cross Blue Shield North Carolina'],
        coverageTypes: ['medical'],
        operatingStates: ['NC'],
        transactionSupport: { eligibilityCheck: 'SUPPORTED', claimPayment: 'ENROLLMENT_REQUIRED' },
      },
      {
        stediId: 'HGJLR',
        displayName: 'Medicare Part A and B',
        primaryPayerId: 'CMS',
        aliases: ['CMS', 'MEDICARE'],
        transactionSupport: { eligibilityCheck: 'ENROLLMENT_REQUIRED' },
      },
      {
        stediId: 'QDSLD',
        displayName: 'Community Health Plan - District Of Columbia',
        primaryPayerId: 'L0230',
        aliases: ['L0230'],
        transactionSupport: { eligibilityCheck: 'NOT_SUPPORTED' },
      },
    ],
  });

  test('primaryPayerId is the id and NM109, the Stedi id an alias, eligibilityCheck gives eligibility and enrollment', () => {
    const result = imported(stedi);
    assert.equal(result.format, 'stedi');
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.entries, [
      {
        id: 'BCSNC',
        name: 'Blue Cross Blue Shield of North Carolina',
        payerId: 'BCSNC',
        aliases: ['1411', '560894904', 'BCBS-NC', 'NCBCBS', 'UPICO'],
        eligibility: true,
        enrollment: 'not-required',
        states: ['NC'],
        connection: CONNECTION,
      },
      {
        id: 'CMS',
        name: 'Medicare Part A and B',
        payerId: 'CMS',
        aliases: ['MEDICARE', 'HGJLR'],
        eligibility: true,
        enrollment: 'required',
        connection: CONNECTION,
      },
      {
        id: 'L0230',
        name: 'Community Health Plan - District Of Columbia',
        payerId: 'L0230',
        aliases: ['QDSLD'],
        eligibility: false,
        connection: CONNECTION,
      },
    ]);
  });

  test('skipUnsupported leaves out the payers without eligibility and lists them', () => {
    const result = imported(stedi, { skipUnsupported: true });
    assert.deepEqual(
      result.entries.map((e) => e.id),
      ['BCSNC', 'CMS'],
    );
    assert.deepEqual(result.skipped, [{ row: 3, id: 'L0230', reason: 'eligibility-not-supported' }]);
  });
});

describe('payer list import: size', () => {
  test('10 000 rows in CSV and in Stedi JSON are all imported', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `P${String(i).padStart(5, '0')}`);
    const csv = [
      'Payer ID,Payer Name,Aliases,270,States',
      ...ids.map((id) => `${id},"Payer ${id}, Inc.",X${id};Y${id},Y,CA;NY`),
    ].join('\r\n');
    assert.equal(imported(csv).entries.length, 10_000);
    const json = JSON.stringify({
      items: ids.map((id) => ({
        stediId: `S${id}`,
        displayName: `Payer ${id}`,
        primaryPayerId: id,
        aliases: [id, `X${id}`],
        transactionSupport: { eligibilityCheck: 'SUPPORTED' },
      })),
    });
    const result = imported(json);
    assert.equal(result.problemCount, 0);
    assert.equal(result.entries.length, 10_000);
  });
});
