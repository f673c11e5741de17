/**
 * Rules for network, coverage level, time periods, deductibleApplies and visit limits (docs/benefit-rules.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eb } from './eb.ts';
import { entryOf, hasCriterion, interpret, PLAN } from './helpers.ts';

describe('network (EB12)', () => {
  test('in-network rows are preferred over out-of-network ones', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*IND*PT***27*50****N*N'),
        eb('EB*B*IND*PT***27*30****N*Y'),
        eb('EB*A*IND*PT*****.4***N*N'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(
      pt.coinsurance,
      null,
      'the out-of-network coinsurance is ignored when in-network rows exist',
    );
    assert.equal(pt.inNetwork, true);
    assert.equal(pt.confidence?.score, 1);
  });

  test('W counts as in-network and sits with Y rows', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*30****N*W'), eb('EB*A*IND*PT*****.1***N*Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(pt.coinsurance, 0.1);
    assert.equal(pt.inNetwork, true);
  });

  test('missing EB12 is unknown: inNetwork null, used before N, lower confidence', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*30'), eb('EB*B*IND*PT***27*60****N*N')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(pt.inNetwork, null);
    assert.ok(hasCriterion(pt, 'network not stated (no EB12) for copay/coinsurance'));
    assert.equal(pt.confidence?.score, 0.9);
  });

  test('only out-of-network rows: reported with inNetwork false and a warning', () => {
    const result = interpret([PLAN, eb('EB*A*IND*PT*****.4***N*N')]);
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.equal(pt.coinsurance, 0.4);
    assert.equal(pt.inNetwork, false);
    assert.ok(hasCriterion(pt, 'only out-of-network'));
    assert.ok(result.warnings.some((w) => w.code === 'OUT_OF_NETWORK_ONLY'));
  });

  test('an out-of-network-only plan deductible is not reported for an in-network entry', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*IND*PT***27*30****N*Y'),
        eb('EB*C*IND*30***23*900*****N'),
        eb('EB*G*IND*30***23*4000*****Y'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, null);
    assert.equal(pt.outOfPocketMax, 4000);
    assert.ok(hasCriterion(pt, 'deductible returned only for out-of-network'));
  });
});

describe('coverage level (EB02)', () => {
  test('EMP is individual, FAM family; ESP counts as family', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*EMP*PT***27*30****N*Y'),
        eb('EB*C*EMP*30***23*1000*****Y'),
        eb('EB*C*FAM*30***23*2000*****Y'),
        eb('EB*G*EMP*30***23*4000*****Y'),
        eb('EB*G*ESP*30***23*8000*****Y'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(pt.deductible, 1000);
    assert.equal(pt.familyDeductible, 2000);
    assert.equal(pt.outOfPocketMax, 4000);
    assert.equal(pt.familyOutOfPocketMax, 8000);
  });

  test('no EB02 on a deductible row: read as individual, named', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*30****N*Y'), eb('EB*C**30***23*750*****Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.deductible, 750);
    assert.ok(hasCriterion(pt, 'deductible row without coverage level (EB02) read as individual'));
    assert.equal(pt.confidence?.score, 0.9); // also "deductibleApplies assumed"
  });
});

describe('amounts by time period (EB06)', () => {
  test('23/22/21/25 or no EB06 are the period amount; 29 is remaining', () => {
    for (const time of ['23', '22', '21', '25', '']) {
      const pt = entryOf(
        [
          PLAN,
          eb('EB*B*IND*PT***27*30****N*Y'),
          eb(`EB*C*IND*30***${time}*1200*****Y`),
          eb('EB*C*IND*30***29*300*****Y'),
        ],
        'Outpatient Physical Therapy',
      );
      assert.equal(pt.deductible, 1200, `EB06 ${time}`);
      assert.equal(pt.deductibleRemaining, 300);
    }
  });

  test('24 is met year to date: remaining derived when no 29 row, and never read as the amount', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*IND*PT***27*30****N*Y'),
        eb('EB*G*IND*30****3000*****Y'),
        eb('EB*G*IND*30***24*1000*****Y'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.outOfPocketMax, 3000);
    assert.equal(pt.outOfPocketRemaining, 2000);
    assert.ok(hasCriterion(pt, 'out-of-pocket maximum remaining derived as amount − met year to date'));
  });

  test('a service-level row with a non-zero amount overrides the plan figure for that service', () => {
    const rows = [
      PLAN,
      eb('EB*C*IND*30***23*1500*****Y'),
      eb('EB*B*IND*PT***27*30****N*Y'),
      eb('EB*C*IND*PT***23*500*****Y'),
      eb('EB*B*IND*MH***27*20****N*Y'),
    ];
    assert.equal(entryOf(rows, 'Outpatient Physical Therapy').deductible, 500);
    assert.equal(entryOf(rows, 'Mental Health').deductible, 1500);
  });
});

describe('deductibleApplies', () => {
  const base = [PLAN, eb('EB*C*IND*30***23*1500*****Y'), eb('EB*B*IND*PT***27*30****N*Y')];

  test('service-level EB*C with 0 → false; with an amount → true', () => {
    assert.equal(
      entryOf([...base, eb('EB*C*IND*PT***23*0*****Y')], 'Outpatient Physical Therapy').deductibleApplies,
      false,
    );
    assert.equal(
      entryOf([...base, eb('EB*C*IND*PT***23*1500*****Y')], 'Outpatient Physical Therapy').deductibleApplies,
      true,
    );
  });

  test('a service-level remaining of 0 means met, not "does not apply"', () => {
    const pt = entryOf([...base, eb('EB*C*IND*PT***29*0*****Y')], 'Outpatient Physical Therapy');
    assert.equal(pt.deductibleApplies, true);
    assert.ok(hasCriterion(pt, 'deductibleApplies assumed from the plan-level deductible'));
  });

  test('no service-level row: assumed from the plan deductible, named, small penalty', () => {
    const pt = entryOf(base, 'Outpatient Physical Therapy');
    assert.equal(pt.deductibleApplies, true);
    assert.equal(pt.confidence?.score, 0.95);
  });

  test('no EB*C at all → null', () => {
    const pt = entryOf([PLAN, eb('EB*B*IND*PT***27*30****N*Y')], 'Outpatient Physical Therapy');
    assert.equal(pt.deductibleApplies, null);
    assert.equal(pt.deductible, null);
  });
});

describe('visit limits', () => {
  test('EB*F with EB09 VS: limit and remaining; used = limit − remaining', () => {
    const pt = entryOf(
      [
        PLAN,
        eb('EB*B*IND*PT***27*30****N*Y'),
        eb('EB*F*IND*PT***23***VS*30**Y'),
        eb('EB*F*IND*PT***29***VS*21**Y'),
      ],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.visitLimit, 30);
    assert.equal(pt.visitsUsed, 9);
  });

  test('HSD VS after the EB gives the limit (HSD05 21) and remaining (HSD05 29)', () => {
    const chiro = entryOf(
      [
        PLAN,
        eb('EB*B*EMP*33****20*****Y'),
        eb('EB*F*IND*33*********Y', { hsd: [['VS', '35', '', '', '21', '1']] }),
        eb('EB*F*IND*33*********Y', { hsd: [['VS', '30', '', '', '29']] }),
      ],
      'Chiropractic',
    );
    assert.equal(chiro.visitLimit, 35);
    assert.equal(chiro.visitsUsed, 5);
  });

  test('an HSD visit frequency per week is not a limit for the benefit period', () => {
    const chiro = entryOf(
      [PLAN, eb('EB*B*IND*33***27*20****N*Y', { hsd: [['VS', '2', 'WK', '1', '35', '1']] })],
      'Chiropractic',
    );
    assert.equal(chiro.visitLimit, null);
  });

  test('a dollar cap in EB07 on an EB*F is not a visit limit', () => {
    const ot = entryOf([PLAN, eb('EB*F*IND*AD*MB**29*1840')], 'Occupational Therapy');
    assert.equal(ot.visitLimit, null);
    assert.equal(ot.visitsUsed, null);
    assert.ok(hasCriterion(ot, 'EB*F dollar limit (EB07 1840) for AD is not a visit limit'));
  });

  test('EB09 99 gives visits used directly', () => {
    const pt = entryOf(
      [PLAN, eb('EB*F*IND*PT***23***VS*20**Y'), eb('EB*F*IND*PT***23***99*3**Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.visitLimit, 20);
    assert.equal(pt.visitsUsed, 3);
  });

  test('remaining above the limit is a conflict: visitsUsed not reported', () => {
    const pt = entryOf(
      [PLAN, eb('EB*F*IND*PT***23***VS*10**Y'), eb('EB*F*IND*PT***29***VS*12**Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.visitLimit, 10);
    assert.equal(pt.visitsUsed, null);
    assert.ok(hasCriterion(pt, 'visits remaining (12) exceed the visit limit (10)'));
  });
});
