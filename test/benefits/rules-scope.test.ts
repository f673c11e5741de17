/**
 * Scope rules (docs/benefit-rules.md "Scope of a row"): Medicare Part A/B, time-qualified amounts, benefit
 * periods (DTP 291/292), procedure-specific rows, and the pairing of a remaining amount with its amount.
 * Each test is a minimal hand-written set of EB rows, as the X12 parser produces them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry, BenefitsInformation } from '../../src/contract/check-response.ts';
import { eb } from './eb.ts';
import { criteria, entryOf, hasCriterion, interpret, PLAN } from './helpers.ts';

function entryAsOf(rows: BenefitsInformation[], serviceType: BenefitEntry['serviceType'], asOf?: string) {
  const result = interpretBenefits({
    benefitsInformation: rows,
    planActive: true,
    requestedServiceTypeCodes: [],
    ...(asOf ? { asOf } : {}),
  });
  const entry = result.benefits.find((b) => b.serviceType === serviceType);
  assert.ok(entry, `no entry for ${serviceType}`);
  return entry;
}

/** A HETS-shaped Medicare answer: Part A and Part B entitlement, each with its own deductible. */
const MEDICARE = [
  eb('EB*1**30^42^45^48^49^69^76^83^A5^A7^AG^BT^BU^BV*MA'),
  eb(
    'EB*1**30^2^23^24^25^26^27^28^33^42^50^51^52^53^67^69^76^83^86^98^A4^A6^A8^AI^AJ^AK^AL^BT^BU^BV^DM^UC*MB',
  ),
  // Part A: the inpatient deductible per benefit period (episode) and its remaining.
  eb('EB*C**30*MA**26*1676'),
  eb('EB*C**30*MA**29*1676'),
  // Part A: per-day coinsurance for days 61-90 of a stay.
  eb('EB*B**30*MA**7*419', { hsd: [['', '', 'DA', '', '', '']] }),
  // Part B: the calendar-year deductible, its remaining, and 20 % coinsurance.
  eb('EB*C**30*MB**23*257'),
  eb('EB*C**30*MB**29*100'),
  eb('EB*A**30*MB****.2'),
];

describe('Medicare: Part A (EB04 MA) never feeds an outpatient entry', () => {
  test('deductible, remaining and coinsurance come from Part B; Part A is named', () => {
    const pt = entryOf(MEDICARE, 'Outpatient Physical Therapy');
    assert.equal(pt.deductible, 257);
    assert.equal(pt.deductibleRemaining, 100, 'not the Part A remaining 1676');
    assert.equal(pt.coinsurance, 0.2);
    assert.equal(pt.copay, null, 'the Part A per-day 419 is not a copay');
    assert.ok(
      criteria(pt).includes('Part B values used; Part A per-episode, per-day amounts ignored'),
      JSON.stringify(criteria(pt)),
    );
    assert.ok(!criteria(pt).some((c) => c.startsWith('conflicting values')), 'Part A is no conflict');
  });

  test('every product takes Part B values (Mental Health through A4/A6/A8 of the Part B row)', () => {
    const result = interpret(MEDICARE);
    for (const entry of result.benefits) {
      assert.equal(entry.deductible, 257, entry.serviceType);
      assert.equal(entry.deductibleRemaining, 100, entry.serviceType);
    }
  });

  test('Part A only: its amounts stay out of the entries, named', () => {
    const pt = entryOf(
      [eb('EB*1**30*MA'), eb('EB*C**30*MA**26*1676'), eb('EB*C**30*MA**29*1676'), PLAN],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, null);
    assert.equal(pt.deductibleRemaining, null);
    assert.ok(
      hasCriterion(pt, 'Part A per-episode amounts ignored: outpatient values come from Medicare Part B'),
    );
  });

  test('before this rule the Part A remaining was reported beside the Part B deductible (remaining > amount)', () => {
    // The same rows read without EB04 would pool: guard that pooling never reports remaining > amount.
    const pooled = entryOf(
      [PLAN, eb('EB*C*IND*30***23*257'), eb('EB*C*IND*30***29*1676')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pooled.deductible, 257);
    assert.equal(pooled.deductibleRemaining, null);
    assert.ok(hasCriterion(pooled, 'deductible remaining (1676) exceeds deductible (257): not reported'));
  });
});

describe('pairing a remaining amount with its amount', () => {
  test('remaining of another insurance type is not paired', () => {
    const pt = entryOf(
      [PLAN, eb('EB*C*IND*30*PR**23*1000'), eb('EB*C*IND*30*PR**29*400'), eb('EB*C*IND*30*SP**29*50')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, 1000);
    assert.equal(pt.deductibleRemaining, 400);
    assert.ok(
      criteria(pt).includes(
        'remaining amount paired with calendar-year deductible; remaining rows of another insurance type (EB04), network (EB12) or benefit period not used',
      ),
      JSON.stringify(criteria(pt)),
    );
  });

  test('remaining of another network indicator (W beside Y) is not paired', () => {
    const pt = entryOf(
      [PLAN, eb('EB*G*IND*30***23*6000*****Y'), eb('EB*G*IND*30***29*7000*****W')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.outOfPocketMax, 6000);
    assert.equal(pt.outOfPocketRemaining, null);
    assert.ok(hasCriterion(pt, "no remaining row shares the calendar-year out-of-pocket maximum's"));
  });

  test('family amounts pair the same way', () => {
    const pt = entryOf(
      [PLAN, eb('EB*C*FAM*30*PR**23*3000'), eb('EB*C*FAM*30*PR**29*1200'), eb('EB*C*FAM*30*MB**29*9999')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.familyDeductible, 3000);
    assert.equal(pt.familyDeductibleRemaining, 1200);
  });

  test('met year to date (EB06 24) derives the remaining only from its own pair', () => {
    const pt = entryOf(
      [PLAN, eb('EB*C*IND*30***23*1000*****Y'), eb('EB*C*IND*30***24*300*****N')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, 1000);
    assert.equal(pt.deductibleRemaining, null);
  });

  test('a service-level deductible never takes the plan remaining of another amount', () => {
    const pt = entryOf(
      [PLAN, eb('EB*C*IND*30***23*1500'), eb('EB*C*IND*30***29*1200'), eb('EB*C*IND*PT***23*500')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, 500);
    assert.equal(pt.deductibleRemaining, null);
  });
});

describe('time qualifiers (EB06) and HSD day ranges', () => {
  const cases: [string, string, keyof BenefitEntry][] = [
    ['per-day (EB06 7)', 'EB*B*IND*30***7*250', 'copay'],
    ['per-episode (EB06 26)', 'EB*B*IND*30***26*150', 'copay'],
    ['per-admission (EB06 36)', 'EB*C*IND*30***36*1600', 'deductible'],
    ['lifetime (EB06 32)', 'EB*C*IND*30***32*5000', 'deductible'],
    ['lifetime remaining (EB06 33)', 'EB*G*IND*30***33*4000', 'outOfPocketMax'],
    ['lifetime remaining (EB06 33)', 'EB*G*IND*30***33*4000', 'outOfPocketRemaining'],
  ];
  for (const [what, row, field] of cases) {
    test(`a ${what} amount is never ${field}`, () => {
      const mh = entryOf([PLAN, eb(row)], 'Mental Health');
      assert.equal(mh[field], null);
      assert.ok(
        criteria(mh).includes(`${what} amounts not used as copay, coinsurance, deductible or out-of-pocket`),
        JSON.stringify(criteria(mh)),
      );
      assert.ok(!hasCriterion(mh, 'network not stated'), 'no network is claimed for a value not reported');
    });
  }

  test('an amount over an HSD day range (HSD03 DA) is not a copay', () => {
    const mh = entryOf(
      [PLAN, eb('EB*B*IND*30****204', { hsd: [['', '', 'DA', '', '7', '21']] })],
      'Mental Health',
    );
    assert.equal(mh.copay, null);
    assert.ok(hasCriterion(mh, 'day-range (HSD in days) amounts not used'));
  });

  test('per-visit (27), calendar year (23), contract (25), year to date (24) and remaining (29) keep their meaning', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*IND*PT***27*30*****Y'),
        eb('EB*C*IND*30***25*2000*****Y'),
        eb('EB*C*IND*30***24*500*****Y'),
        eb('EB*G*IND*30***23*6000*****Y'),
        eb('EB*G*IND*30***29*5500*****Y'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(pt.deductible, 2000);
    assert.equal(pt.deductibleRemaining, 1500);
    assert.equal(pt.outOfPocketMax, 6000);
    assert.equal(pt.outOfPocketRemaining, 5500);
  });

  test('the remaining of a per-episode deductible is not the plan remaining', () => {
    const mh = entryOf([PLAN, eb('EB*C*IND*30***26*1600'), eb('EB*C*IND*30***29*800')], 'Mental Health');
    assert.equal(mh.deductible, null);
    assert.equal(mh.deductibleRemaining, null);
    assert.ok(hasCriterion(mh, 'deductible remaining of a per-day, per-episode or lifetime amount not used'));
  });

  test('a time-scoped row still says the service is covered', () => {
    const result = interpret([eb('EB*B*IND*MH***7*250')], 'unknown');
    const mh = result.benefits.find((b) => b.serviceType === 'Mental Health')!;
    assert.equal(mh.coverageStatus, 'Active Coverage');
    assert.equal(mh.copay, null);
  });
});

describe('benefit periods (DTP 291/292 under the EB)', () => {
  const rows = [
    PLAN,
    eb('EB*C*IND*30***23*1500', { dates: { plan: '20250101-20251231' } }),
    eb('EB*C*IND*30***29*200', { dates: { plan: '20250101-20251231' } }),
    eb('EB*C*IND*30***23*1600', { dates: { plan: '20260101-20261231' } }),
    eb('EB*C*IND*30***29*1100', { dates: { plan: '20260101-20261231' } }),
  ];

  test('the period containing the date of service wins', () => {
    const pt = entryAsOf(rows, 'Outpatient Physical Therapy', '20260315');
    assert.equal(pt.deductible, 1600);
    assert.equal(pt.deductibleRemaining, 1100);
    assert.ok(
      criteria(pt).includes(
        'benefit period 20260101-20261231 used (DTP 291/292): it contains 20260315; rows of other periods set aside',
      ),
      JSON.stringify(criteria(pt)),
    );
    assert.ok(!criteria(pt).some((c) => c.startsWith('conflicting')));
  });

  test('an earlier date of service picks the earlier period (ISO dates accepted)', () => {
    const pt = entryAsOf(rows, 'Outpatient Physical Therapy', '2025-11-20');
    assert.equal(pt.deductible, 1500);
    assert.equal(pt.deductibleRemaining, 200);
  });

  test('no period contains the date: the latest begun by then; without a date: the latest', () => {
    assert.equal(entryAsOf(rows, 'Outpatient Physical Therapy', '20270601').deductible, 1600);
    assert.equal(entryAsOf(rows, 'Outpatient Physical Therapy').deductible, 1600);
    assert.equal(entryAsOf(rows, 'Outpatient Physical Therapy', '20200101').deductible, 1500);
  });

  test('DTP 292 (benefit) dates choose the same way', () => {
    const pt = entryAsOf(
      [
        PLAN,
        eb('EB*G*IND*30***23*5000', { dates: { benefit: '20250101-20251231' } }),
        eb('EB*G*IND*30***23*6000', { dates: { benefit: '20260101-20261231' } }),
      ],
      'Outpatient Physical Therapy',
      '20250704',
    );
    assert.equal(pt.outOfPocketMax, 5000);
  });

  test('one period only: nothing is set aside', () => {
    const pt = entryAsOf(
      [PLAN, eb('EB*C*IND*30***23*1500', { dates: { plan: '20250101-20251231' } })],
      'Outpatient Physical Therapy',
      '20260315',
    );
    assert.equal(pt.deductible, 1500);
  });
});

describe('procedure-specific rows (EB13, no EB03)', () => {
  test('never a plan-level fallback', () => {
    const mh = entryOf([PLAN, eb('EB*B*IND****27*75', { procedure: ['HC', '80061'] })], 'Mental Health');
    assert.equal(mh.copay, null);
  });

  test('never a conflict with the plan-level copay', () => {
    const mh = entryOf(
      [PLAN, eb('EB*B*IND*30***27*20'), eb('EB*B*IND****27*75', { procedure: ['HC', '80061', '26'] })],
      'Mental Health',
    );
    assert.equal(mh.copay, 20);
    assert.ok(!criteria(mh).some((c) => c.startsWith('conflicting')), JSON.stringify(criteria(mh)));
  });

  test('a procedure row does not make the plan active or inactive', () => {
    const result = interpret([eb('EB*6*IND****', { procedure: ['HC', '80061'] }), PLAN], 'unknown');
    assert.equal(
      result.warnings.some((w) => w.code === 'PLAN_STATUS_CONFLICT'),
      false,
    );
  });

  test('an MNT procedure code still names Medical Nutrition (the procedure is the product)', () => {
    const mn = entryOf([PLAN, eb('EB*B*IND****27*15', { procedure: ['HC', '97802'] })], 'Medical Nutrition');
    assert.equal(mn.copay, 15);
  });

  test('with EB03 as well, the row is read for its service types as before', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*40', { procedure: ['HC', '97110'] })],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 40);
  });
});

describe('plan status across insurance types', () => {
  test('Part A inactive beside Part B active is no contradiction; outpatient coverage is active', () => {
    const result = interpret([eb('EB*6**30*MA'), eb('EB*1**30*MB'), eb('EB*C**30*MB**23*283')], 'unknown');
    assert.deepEqual(result.warnings.map((w) => w.code).includes('PLAN_STATUS_CONFLICT'), false);
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.equal(pt.coverageStatus, 'Active Coverage');
    assert.equal(pt.deductible, 283);
  });

  test('active and inactive rows of the same insurance type (or of none) still contradict', () => {
    const same = interpret([eb('EB*6**30*MB'), eb('EB*1**30*MB')], 'active');
    assert.ok(same.warnings.some((w) => w.code === 'PLAN_STATUS_CONFLICT'));
    const untyped = interpret([eb('EB*6**30'), eb('EB*1**30*MB')], 'active');
    assert.ok(untyped.warnings.some((w) => w.code === 'PLAN_STATUS_CONFLICT'));
  });
});
