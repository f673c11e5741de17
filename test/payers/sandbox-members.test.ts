/**
 * Every sandbox member: a 270 from build270 through the connector, and the 271 read back with the plain
 * segment reader. Expected values are the tables of docs/sandbox.md and the row conventions of
 * docs/sandbox-271.md, written out here by hand.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { X12Parser } from 'node-x12';
import type { Segment } from '../../src/x12/segments.ts';
import { member } from '../helpers/members.ts';
import { ask, type EbRow, ebRows, loops, type Person, text } from './helpers.ts';

const JANE = member('SBX1000001');
const JOHN = member('SBX1000002');
const EMMA = member('SBX1000010');

const PREVENTIVE = 'PREVENTIVE NUTRITION COUNSELING';
const MEDICAL = 'MEDICAL NUTRITION THERAPY';

/** [product, EB03, MSG, copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, auth] from Table A. */
type Row = [
  string,
  string,
  string | undefined,
  number | null,
  number | null,
  boolean,
  number | null,
  number | null,
  boolean,
];
const TABLE_A: Row[] = [
  ['Preventive Nutrition', '98', PREVENTIVE, 0, null, false, 6, 1, false],
  ['Medical Nutrition', '98', MEDICAL, 20, null, false, 12, 0, false],
  ['Outpatient Physical Therapy', 'PT', undefined, 30, null, true, 20, 4, false],
  ['Mental Health', 'MH', undefined, 25, null, false, null, null, true],
  ['Occupational Therapy', 'AD', undefined, null, 0.2, true, 20, 2, false],
  ['Speech Therapy', 'AF', undefined, null, 0.2, true, 20, 0, true],
  ['Chiropractic', '33', undefined, 15, null, false, 12, 5, false],
];

/** Rows whose EB03 includes `stc` and, for nutrition, that carry the product's MSG. */
function rowsFor(rows: EbRow[], stc: string, msg: string | undefined): EbRow[] {
  return rows.filter(
    (r) => (r.eb[3] ?? '').split('^').includes(stc) && (msg === undefined || r.msg.includes(msg)),
  );
}

const find = (rows: EbRow[], pred: (eb: string[]) => boolean) => rows.filter((r) => pred(r.eb));

function assertEnvelope(segments: Segment[], raw: string) {
  assert.equal(raw.indexOf('~'), 105, 'ISA is 106 characters');
  const at = (id: string) => segments.find((s) => s.id === id)!;
  const st = segments.findIndex((s) => s.id === 'ST');
  const se = segments.findIndex((s) => s.id === 'SE');
  assert.equal(at('GS').elements[1], 'HB');
  assert.deepEqual(at('ST').elements.slice(1), ['271', '0001', '005010X279A1']);
  assert.equal(Number(at('SE').elements[1]), se - st + 1);
  assert.equal(at('SE').elements[2], at('ST').elements[2]);
  assert.equal(at('GE').elements[2], at('GS').elements[6]);
  assert.equal(at('IEA').elements[2], at('ISA').elements[13]);
  assert.equal(at('ISA').elements[6]!.trim(), 'SANDBOX');
  assert.equal(at('ISA').elements[8]!.trim(), 'ELIGSVC', 'answers the 270 sender');
  assert.equal(at('ISA').elements[15], 'T', 'usage indicator of the 270');
  assert.deepEqual(at('BHT').elements.slice(1, 4), ['0022', '11', 'TRACE0001']);
  assert.doesNotThrow(() => new X12Parser(true).parse(raw), 'a strict independent parser accepts the 271');
}

function assertSourceAndReceiver(segments: Segment[]) {
  const l = loops(segments);
  assert.equal(text(l.source[1]), 'NM1*PR*2*Sandbox Health Plan*****PI*SANDBOX');
  assert.equal(text(l.receiver[1]), 'NM1*1P*2*Test Clinic*****XX*1234567893', 'echoes the 270 provider');
}

function assertTraceEcho(subscriber: Segment[]) {
  const trns = subscriber.filter((s) => s.id === 'TRN');
  assert.equal(text(trns[0]), 'TRN*2*TRACE0001*9ELIGSVC00');
  assert.equal(trns[1]!.elements[1], '1');
  assert.match(trns[1]!.elements[2]!, /^SBX\d{9}$/);
  assert.equal(trns[1]!.elements[3], '9SANDBOXHP');
}

describe('sandbox 271: Table A (SBX1000001)', () => {
  test('envelope, payer, provider echo, trace echo', async () => {
    const { text: raw, segments } = await ask(JANE);
    assertEnvelope(segments, raw);
    assertSourceAndReceiver(segments);
    assertTraceEcho(loops(segments).subscriber);
  });

  test('loop 2100C: name, group, address, demographics, eligibility and plan dates', async () => {
    const sub = loops((await ask(JANE)).segments).subscriber;
    const ids = sub.map((s) => s.id);
    assert.deepEqual(ids.slice(0, 11), [
      'HL',
      'TRN',
      'TRN',
      'NM1',
      'REF',
      'N3',
      'N4',
      'DMG',
      'DTP',
      'DTP',
      'EB',
    ]);
    assert.equal(text(sub[0]), 'HL*3*2*22*1', 'has a dependent');
    assert.equal(text(sub[3]), 'NM1*IL*1*DOE*JANE****MI*SBX1000001');
    assert.equal(text(sub[4]), 'REF*6P*G-12345');
    assert.equal(text(sub[7]), 'DMG*D8*19800115*F');
    assert.equal(text(sub[8]), 'DTP*307*D8*20260101');
    assert.equal(text(sub[9]), 'DTP*291*RD8*20260101-20261231');
    assert.equal(sub.filter((s) => s.id === 'AAA').length, 0);
  });

  test('plan rows: active PPO, deductible and out-of-pocket, individual and family', async () => {
    const rows = ebRows(loops((await ask(JANE)).segments).subscriber);
    assert.equal(rows[0]!.eb.join('*'), 'EB*1*IND*30*PR*Sandbox PPO Gold');
    const plan = (code: string, level: string, time: string) =>
      find(rows, (e) => e[1] === code && e[2] === level && e[3] === '30' && e[6] === time).map((r) =>
        r.eb.join('*'),
      );
    assert.deepEqual(plan('C', 'IND', '23'), ['EB*C*IND*30***23*1500*****Y']);
    assert.deepEqual(plan('C', 'IND', '29'), ['EB*C*IND*30***29*500*****Y']);
    assert.deepEqual(plan('C', 'FAM', '23'), ['EB*C*FAM*30***23*3000*****Y']);
    assert.deepEqual(plan('C', 'FAM', '29'), ['EB*C*FAM*30***29*2000*****Y']);
    assert.deepEqual(plan('G', 'IND', '23'), ['EB*G*IND*30***23*5000*****Y']);
    assert.deepEqual(plan('G', 'IND', '29'), ['EB*G*IND*30***29*3200*****Y']);
    assert.deepEqual(plan('G', 'FAM', '23'), ['EB*G*FAM*30***23*10000*****Y']);
    assert.deepEqual(plan('G', 'FAM', '29'), ['EB*G*FAM*30***29*8000*****Y']);
  });

  for (const [product, stc, msg, copay, coinsurance, deductibleApplies, limit, used, auth] of TABLE_A) {
    test(`service rows: ${product}`, async () => {
      const all = ebRows(loops((await ask(JANE)).segments).subscriber);
      const rows = rowsFor(all, stc, msg);
      const inNet = rows.filter((r) => r.eb[12] === 'Y');
      const authCode = auth ? 'Y' : 'N';
      if (msg)
        assert.ok(
          rows.every((r) => r.msg.length === 1),
          'every nutrition row carries its MSG',
        );

      const copays = find(inNet, (e) => e[1] === 'B');
      assert.deepEqual(
        copays.map((r) => [r.eb[6], Number(r.eb[7]), r.eb[11]]),
        copay === null ? [] : [['27', copay, authCode]],
      );
      const coins = find(inNet, (e) => e[1] === 'A');
      assert.deepEqual(
        coins.map((r) => [Number(r.eb[8]), r.eb[7] ?? '', r.eb[11]]),
        coinsurance === null ? [] : [[coinsurance, '', authCode]],
      );
      const deductible = find(inNet, (e) => e[1] === 'C');
      assert.deepEqual(
        deductible.map((r) => [r.eb[6], Number(r.eb[7])]),
        [['23', deductibleApplies ? 1500 : 0]],
      );
      const limits = find(inNet, (e) => e[1] === 'F');
      if (limit === null) assert.equal(limits.length, 0);
      else {
        const byTime = Object.fromEntries(limits.map((r) => [r.eb[6], [r.eb[9], Number(r.eb[10])]]));
        assert.deepEqual(byTime, { '23': ['VS', limit], '29': ['VS', limit - used!] });
        const hsd = limits.find((r) => r.eb[6] === '23')!.hsd;
        assert.deepEqual(
          hsd.map((h) => [h[1], Number(h[2]), h[5]]),
          [['VS', limit, '23']],
        );
      }
      const outOfNetwork = rows.filter((r) => r.eb[12] === 'N');
      assert.deepEqual(
        outOfNetwork.map((r) => [r.eb[1], Number(r.eb[8]), r.eb[11]]),
        [['A', 0.4, authCode]],
      );
    });
  }

  test('one dependent JOHNNY DOE in loop 2000D with no AAA', async () => {
    const { dependents } = loops((await ask(JANE)).segments);
    assert.equal(dependents.length, 1);
    const d = dependents[0]!;
    assert.equal(text(d[0]), 'HL*4*3*23*0');
    assert.equal(text(d[1]), 'NM1*03*1*DOE*JOHNNY');
    assert.equal(text(d.find((s) => s.id === 'DMG')), 'DMG*D8*20150302*M');
    assert.equal(d.filter((s) => s.id === 'AAA').length, 0);
  });
});

const TABLE_B: [string, string, string | undefined, number, boolean][] = [
  ['Preventive Nutrition', '98', PREVENTIVE, 0, false],
  ['Medical Nutrition', '98', MEDICAL, 10, false],
  ['Outpatient Physical Therapy', 'PT', undefined, 20, true],
  ['Mental Health', 'MH', undefined, 20, true],
  ['Occupational Therapy', 'AD', undefined, 20, true],
  ['Speech Therapy', 'AF', undefined, 20, true],
];

async function assertTableB(person: Person, groupLine: string) {
  const { text: raw, segments } = await ask(person);
  assertEnvelope(segments, raw);
  assertSourceAndReceiver(segments);
  const sub = loops(segments).subscriber;
  assertTraceEcho(sub);
  assert.equal(text(sub.find((s) => s.id === 'REF')), groupLine);
  const rows = ebRows(sub);
  assert.equal(rows[0]!.eb.join('*'), 'EB*1*IND*30*HM*Sandbox HMO Silver');
  assert.equal(find(rows, (e) => e[1] === 'C' && e[3] === '30').length, 0, 'no plan deductible');
  assert.deepEqual(
    find(rows, (e) => e[1] === 'G').map((r) => r.eb.join('*')),
    [
      'EB*G*IND*30***23*3000*****Y',
      'EB*G*IND*30***29*2500*****Y',
      'EB*G*FAM*30***23*6000*****Y',
      'EB*G*FAM*30***29*5500*****Y',
    ],
  );
  for (const [product, stc, msg, copay, auth] of TABLE_B) {
    const mine = rowsFor(rows, stc, msg);
    const lines = mine.map((r) => r.eb.join('*'));
    assert.deepEqual(
      lines,
      [`EB*B*IND*${stc}***27*${copay}****${auth ? 'Y' : 'N'}*Y`, `EB*C*IND*${stc}***23*0*****Y`],
      product,
    );
  }
  assert.deepEqual(
    rowsFor(rows, '33', undefined).map((r) => r.eb.join('*')),
    ['EB*I*IND*33'],
    'chiropractic not covered, no cost sharing',
  );
  assert.equal(rows.filter((r) => r.eb[12] === 'N').length, 0, 'HMO: no out-of-network rows');
  return loops(segments);
}

describe('sandbox 271: Table B', () => {
  test('SBX1000002: HMO, copays, no deductible, chiropractic not covered', async () => {
    const l = await assertTableB(JOHN, 'REF*6P*G-67890');
    assert.equal(text(l.subscriber[0]), 'HL*3*2*22*0', 'no dependents');
    assert.equal(l.dependents.length, 0);
    const pcp = l.subscriber.findIndex((s) => s.id === 'LS');
    assert.equal(text(l.subscriber[pcp - 1]), 'EB*L', 'primary care provider row');
    assert.equal(l.subscriber[pcp + 1]!.elements[1], 'P3');
    assert.equal(text(l.subscriber[pcp + 2]), 'LE*2120');
  });

  test('SBX1000010: Table B and two dependents, NOAH with AAA 73 in loop 2100D', async () => {
    const l = await assertTableB(EMMA, 'REF*6P*G-67890');
    assert.equal(text(l.subscriber[0]), 'HL*3*2*22*1');
    assert.equal(l.dependents.length, 2);
    const [noah, other] = l.dependents as [Segment[], Segment[]];
    assert.equal(text(noah[0]), 'HL*4*3*23*0');
    assert.equal(text(noah[1]), 'NM1*03*1*WILSON*NOAH');
    assert.equal(text(noah[2]), 'AAA*N**73*C', 'AAA right after the dependent NM1');
    assert.equal(text(noah.find((s) => s.id === 'DMG')), 'DMG*D8*20120101*M');
    assert.equal(text(other[0]), 'HL*5*3*23*0');
    assert.equal(other[1]!.elements[4], 'OLIVIA');
    assert.equal(other.filter((s) => s.id === 'AAA').length, 0);
    assert.equal(l.subscriber.filter((s) => s.id === 'AAA').length, 0, 'the subscriber itself is fine');
  });
});

describe('sandbox 271: scenario members', () => {
  test('SBX1000003: inactive plan, only EB*6*IND*30', async () => {
    const { segments } = await ask(member('SBX1000003'));
    assert.deepEqual(
      ebRows(loops(segments).subscriber).map((r) => r.eb.join('*')),
      ['EB*6*IND*30'],
    );
  });

  test('SBX1000004: plan-level rows only, nothing per service', async () => {
    const { segments } = await ask(member('SBX1000004'));
    const rows = ebRows(loops(segments).subscriber);
    assert.ok(
      rows.every((r) => r.eb[3] === '30'),
      'every EB03 is 30',
    );
    const lines = rows.map((r) => r.eb.join('*'));
    assert.equal(lines[0], 'EB*1*IND*30*PR*Sandbox PPO Silver');
    assert.ok(lines.includes('EB*B*IND*30***27*35****N*Y'));
    assert.ok(lines.includes('EB*A*IND*30*****.2***N*Y'));
    for (const code of ['C', 'G']) {
      for (const level of ['IND', 'FAM']) {
        const times = rows.filter((r) => r.eb[1] === code && r.eb[2] === level).map((r) => r.eb[6]);
        assert.deepEqual(times, ['23', '29'], `${code} ${level}`);
      }
    }
  });

  test('SBX1000005: one EB*1 with every product code in EB03 repetitions, no amounts', async () => {
    const { segments } = await ask(member('SBX1000005'));
    assert.deepEqual(
      ebRows(loops(segments).subscriber).map((r) => r.eb.join('*')),
      ['EB*1*IND*30^98^PT^MH^AD^AF^33*PR*Sandbox Basic'],
    );
  });

  test('SBX1000006: only pharmacy and vision', async () => {
    const { segments } = await ask(member('SBX1000006'));
    assert.deepEqual(
      ebRows(loops(segments).subscriber).map((r) => r.eb.join('*')),
      ['EB*1*IND*88', 'EB*1*IND*AL'],
    );
  });

  test('SBX1000013: Table A, then an EB*R naming a commercial primary payer in 2120C', async () => {
    const { segments } = await ask(member('SBX1000013'));
    const subscriber = loops(segments).subscriber.map(text);
    const at = subscriber.indexOf('EB*R*IND*30*C1');
    assert.ok(at > 0, 'an EB*R row');
    assert.deepEqual(subscriber.slice(at, at + 7), [
      'EB*R*IND*30*C1',
      'REF*1W*NWC4455667',
      'REF*6P*NW-4410',
      'DTP*290*D8*20260101',
      'LS*2120',
      'NM1*PRP*2*NORTHWIND COMMERCIAL HEALTH*****PI*NWCH1',
      'LE*2120',
    ]);
    assert.equal(ebRows(loops(segments).subscriber)[0]!.eb.join('*'), 'EB*1*IND*30*PR*Sandbox PPO Gold');
  });

  test('SBX1000014: Medicare Part B, no group, individual deductible only, an MSP (EB04 12) row', async () => {
    const { segments } = await ask(member('SBX1000014'));
    const l = loops(segments);
    const subscriber = l.subscriber.map(text);
    assert.ok(!subscriber.some((s) => s?.startsWith('REF*6P')), 'Medicare has no group');
    const lines = ebRows(l.subscriber).map((r) => r.eb.join('*'));
    assert.equal(lines[0], 'EB*1*IND*30*MB*Sandbox Medicare Part B');
    assert.ok(lines.includes('EB*C*IND*30***23*283*****Y'));
    assert.ok(!lines.some((x) => x.startsWith('EB*C*FAM') || x.startsWith('EB*G')), 'no family, no OOP');
    assert.ok(lines.includes('EB*A*IND*PT*****.2***N*Y'));
    const at = subscriber.indexOf('EB*R*IND*30*12');
    assert.deepEqual(subscriber.slice(at, at + 6), [
      'EB*R*IND*30*12',
      'REF*IG*CEG7781203',
      'DTP*290*D8*20120301',
      'LS*2120',
      'NM1*PRP*2*CONTOSO EMPLOYER GROUP HEALTH PLAN*****PI*CEGHP',
      'LE*2120',
    ]);
  });

  test('SBX1000007 and SBX1000009 answer like Table A when they answer (slow: latency 0 here)', async () => {
    const { segments } = await ask(member('SBX1000007'));
    assert.equal(ebRows(loops(segments).subscriber)[0]!.eb.join('*'), 'EB*1*IND*30*PR*Sandbox PPO Gold');
  });
});

/** AAA in loop 2100C: after the subscriber NM1, before any other HL; no benefits. */
function assertSubscriberAaa(segments: Segment[], code: string) {
  const l = loops(segments);
  const aaas = segments.filter((s) => s.id === 'AAA');
  assert.equal(aaas.length, 1);
  const nm1 = l.subscriber.findIndex((s) => s.id === 'NM1');
  assert.equal(l.subscriber[nm1]!.elements[1], 'IL');
  assert.equal(text(l.subscriber[nm1 + 1]), `AAA*N**${code}*C`);
  assert.equal(ebRows(l.subscriber).length, 0);
  assert.equal(l.dependents.length, 0);
  assertTraceEcho(l.subscriber);
}

describe('sandbox 271: matching rules and rejection members', () => {
  const cases: [string, Person, string][] = [
    ['memberId not SBX + 7 digits → 72', { ...JANE, memberId: 'ABC123' }, '72'],
    ['lower-case prefix is not the form → 72', { ...JANE, memberId: 'sbx1000001' }, '72'],
    ['eight digits → 72', { ...JANE, memberId: 'SBX10000011' }, '72'],
    ['well-formed, not in the table → 75', { ...JANE, memberId: 'SBX1999999' }, '75'],
    ['last name mismatch → 73', { ...JANE, lastName: 'ROE' }, '73'],
    ['date of birth mismatch → 71', { ...JANE, dateOfBirth: '19800116' }, '71'],
    ['SBX1000067 → 67', member('SBX1000067'), '67'],
    ['SBX1000077 → 77', member('SBX1000077'), '77'],
  ];
  for (const [label, person, code] of cases) {
    test(label, async () => {
      const { text: raw, segments } = await ask(person);
      assertEnvelope(segments, raw);
      assertSubscriberAaa(segments, code);
      const nm1 = loops(segments).subscriber.find((s) => s.id === 'NM1')!;
      assert.equal(nm1.elements[9], person.memberId, 'echoes the inquiry subscriber');
    });
  }

  test('last name matching is case-insensitive; first name is not checked', async () => {
    const { segments } = await ask({ ...JANE, lastName: 'doe', firstName: 'Janet' });
    assert.equal(segments.filter((s) => s.id === 'AAA').length, 0);
    assert.equal(
      text(loops(segments).subscriber.find((s) => s.id === 'NM1')),
      'NM1*IL*1*DOE*JANE****MI*SBX1000001',
    );
  });

  test('the rules apply in order: a bad id wins over a name mismatch', async () => {
    assertSubscriberAaa(
      (await ask({ ...JANE, memberId: 'X', lastName: 'ROE', dateOfBirth: '19000101' })).segments,
      '72',
    );
    assertSubscriberAaa((await ask({ ...JANE, lastName: 'ROE', dateOfBirth: '19000101' })).segments, '73');
  });
});
