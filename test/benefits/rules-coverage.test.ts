/**
 * Rules for copay/coinsurance/authorization, conflicts, service type fallbacks, nutrition, coverage status,
 * plan status, check-level confidence and shifted elements (docs/benefit-rules.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eb } from './eb.ts';
import { criteria, entryOf, hasCriterion, interpret, PLAN } from './helpers.ts';

describe('copay, coinsurance and authorization', () => {
  test('copay from EB07 dollars, coinsurance from the EB08 fraction', () => {
    const mh = entryOf(
      [PLAN, eb('EB*B*IND*MH***27*25.50****N*Y'), eb('EB*A*IND*MH*****0.15***N*Y')],
      'Mental Health',
    );
    assert.equal(mh.copay, 25.5);
    assert.equal(mh.coinsurance, 0.15);
  });

  test('a whole-number percent (20) is read as a fraction, named', () => {
    const mh = entryOf([PLAN, eb('EB*A*IND*MH*****20***N*Y')], 'Mental Health');
    assert.equal(mh.coinsurance, 0.2);
    assert.ok(hasCriterion(mh, 'coinsurance sent as a whole percent'));
  });

  test('EB11 Y → true, N → false, U or absent → null', () => {
    const auth = (flag: string) =>
      entryOf([PLAN, eb(`EB*B*IND*MH***27*25****${flag}*Y`)], 'Mental Health').authorizationRequired;
    assert.equal(auth('Y'), true);
    assert.equal(auth('N'), false);
    assert.equal(auth('U'), null);
    assert.equal(auth(''), null);
  });

  test('conflicting authorization flags: reports true (the safer answer) and names the conflict', () => {
    const mh = entryOf(
      [PLAN, eb('EB*B*IND*MH***27*25****N*Y'), eb('EB*A*IND*MH*****.1***Y*Y')],
      'Mental Health',
    );
    assert.equal(mh.authorizationRequired, true);
    assert.ok(hasCriterion(mh, 'conflicting values for authorizationRequired (false, true): took true'));
  });
});

describe('conflicts', () => {
  test('two in-network individual copays that disagree: first reported, conflict named, score lowered, warning', () => {
    const result = interpret([PLAN, eb('EB*B*IND*PT***27*30****N*Y'), eb('EB*B*IND*PT***27*45****N*Y')]);
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.equal(pt.copay, 30);
    assert.ok(
      criteria(pt).includes(
        'conflicting values for copay (30, 45): took 30 (first in-network individual row)',
      ),
    );
    assert.equal(pt.confidence?.score, 0.85);
    assert.ok(
      result.warnings.some(
        (w) => w.code === 'CONFLICTING_VALUES' && w.description.startsWith('Outpatient Physical Therapy'),
      ),
    );
    assert.equal(result.confidence.criteria.noConflicts, false);
  });

  test('rows that agree are not a conflict', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*30****N*Y'), eb('EB*B*IND*PT***27*30.00****N*Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.confidence?.score, 1);
  });

  test('a more specific code is not in conflict with a fallback code', () => {
    const pt = entryOf(
      [PLAN, eb('EB*B*IND*PT***27*30****N*Y'), eb('EB*B*IND*AE***27*50****N*Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.copay, 30);
    assert.equal(pt.confidence?.score, 1);
  });
});

describe('service type fallbacks', () => {
  test('related code (AE for PT): used with a lower score and a named criterion', () => {
    const result = interpret([PLAN, eb('EB*B*IND*AE***27*40****N*Y')]);
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.equal(pt.copay, 40);
    assert.ok(criteria(pt).includes('matched through related service type AE Physical Medicine'));
    assert.equal(pt.confidence?.score, 0.85);
    assert.ok(result.warnings.some((w) => w.code === 'SERVICE_TYPE_FALLBACK'));
  });

  test('plan-level fallback for a missing service; cost sharing from a lower tier is named', () => {
    const rows = [
      PLAN,
      eb('EB*B*IND*30***27*35****N*Y'),
      eb('EB*1*IND*PT'),
      eb('EB*B*IND*MH***27*20****N*Y'),
    ];
    const chiro = entryOf(rows, 'Chiropractic');
    assert.equal(chiro.copay, 35);
    assert.ok(criteria(chiro).includes('derived from plan-level benefits (30)'));
    assert.equal(chiro.confidence?.score, 0.65);
    const pt = entryOf(rows, 'Outpatient Physical Therapy');
    assert.equal(pt.copay, 35);
    assert.ok(criteria(pt).includes('copay/coinsurance taken from plan-level benefits (30)'));
    assert.equal(pt.authorizationRequired, false);
    assert.ok(criteria(pt).includes('authorization taken from plan-level benefits (30)'));
    assert.equal(pt.confidence?.score, 0.8);
    assert.equal(entryOf(rows, 'Mental Health').copay, 20);
  });

  test('a requested primary code answered only by fallback rows is named', () => {
    const result = interpret([PLAN, eb('EB*B*IND*30***27*35****N*Y')], 'active', ['PT']);
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.ok(criteria(pt).includes('PT was requested but the payer answered it only through fallback rows'));
  });

  test('Speech Therapy falls back to AE (Medicare reports the PT/speech cap there)', () => {
    const st = entryOf([PLAN, eb('EB*A*IND*AE*****.2***N*Y')], 'Speech Therapy');
    assert.equal(st.coinsurance, 0.2);
    assert.ok(criteria(st).includes('matched through related service type AE Physical Medicine'));
  });

  test('Mental Health related codes: outpatient A8 used, inpatient A7 ignored', () => {
    const mh = entryOf(
      [PLAN, eb('EB*A*IND*A7*****.1***N*Y'), eb('EB*A*IND*A8*****.2***N*Y')],
      'Mental Health',
    );
    assert.equal(mh.coinsurance, 0.2);
  });
});

describe('nutrition products (STC 98 told apart by MSG text)', () => {
  test('preventive and medical MSG rows go to their own product only', () => {
    const rows = [
      PLAN,
      eb('EB*B*IND*98***27*0****N*Y', { msg: ['PREVENTIVE NUTRITION COUNSELING'] }),
      eb('EB*B*IND*98***27*20****N*Y', { msg: ['MEDICAL NUTRITION THERAPY'] }),
    ];
    const preventive = entryOf(rows, 'Preventive Nutrition');
    const medical = entryOf(rows, 'Medical Nutrition');
    assert.equal(preventive.copay, 0);
    assert.equal(medical.copay, 20);
    assert.ok(criteria(medical).includes('nutrition benefit identified from MSG text (98)'));
    assert.equal(medical.confidence?.score, 0.95);
  });

  test('a 98 row without nutrition text is a general fallback for both, lower score', () => {
    const rows = [PLAN, eb('EB*B*IND*98***27*25****N*Y', { msg: ['OFFICE VISIT'] })];
    for (const product of ['Preventive Nutrition', 'Medical Nutrition'] as const) {
      const entry = entryOf(rows, product);
      assert.equal(entry.copay, 25);
      assert.ok(hasCriterion(entry, 'matched through general service type 98'));
      assert.equal(entry.confidence?.score, 0.75);
    }
  });

  test('nutrition text that says neither kind is used for both with a named doubt', () => {
    const rows = [PLAN, eb('EB*B*IND*98***27*15****N*Y', { msg: ['DIETITIAN VISIT'] })];
    const preventive = entryOf(rows, 'Preventive Nutrition');
    assert.equal(preventive.copay, 15);
    assert.ok(hasCriterion(preventive, 'nutrition benefit in MSG text does not say preventive or medical'));
    assert.equal(preventive.confidence?.score, 0.85);
  });

  test('an MNT procedure code (EB13 97802) marks Medical Nutrition', () => {
    const rows = [PLAN, eb('EB*B*IND*1***27*30****N*Y', { procedureCode: '97802' })];
    assert.equal(entryOf(rows, 'Medical Nutrition').copay, 30);
    assert.ok(
      hasCriterion(entryOf(rows, 'Medical Nutrition'), 'nutrition benefit identified from procedure code'),
    );
    assert.equal(entryOf(rows, 'Preventive Nutrition').copay, null);
  });
});

describe('coverage status', () => {
  test('EB*I for the service → Not Covered with no cost-sharing fields', () => {
    const chiro = entryOf([PLAN, eb('EB*B*IND*30***27*35****N*Y'), eb('EB*I*IND*33')], 'Chiropractic');
    assert.deepEqual(Object.keys(chiro).sort(), ['confidence', 'coverageStatus', 'serviceType']);
    assert.equal(chiro.coverageStatus, 'Not Covered');
  });

  test('EB*I with EB12 N only (not covered out of network) keeps in-network coverage', () => {
    const chiro = entryOf(
      [PLAN, eb('EB*B*IND*33***27*20****N*Y'), eb('EB*I*IND*33*********N')],
      'Chiropractic',
    );
    assert.equal(chiro.coverageStatus, 'Active Coverage');
    assert.equal(chiro.copay, 20);
    assert.ok(hasCriterion(chiro, 'not covered out of network'));
  });

  test('EB*I and a copay for the same code: Not Covered, conflict named', () => {
    const chiro = entryOf([PLAN, eb('EB*B*IND*33***27*20****N*Y'), eb('EB*I*IND*33')], 'Chiropractic');
    assert.equal(chiro.coverageStatus, 'Not Covered');
    assert.ok(hasCriterion(chiro, 'conflicting coverage for 33'));
    assert.equal(chiro.confidence?.score, 0.85);
  });

  test('a plan-level EB*I is not a service exclusion', () => {
    const pt = entryOf([PLAN, eb('EB*I*IND*30')], 'Outpatient Physical Therapy');
    assert.equal(pt.coverageStatus, 'Active Coverage');
  });

  test('EB*6 for a service is not Not Covered (EB*6 only means plan inactive)', () => {
    const pt = entryOf(
      [PLAN, eb('EB*6*IND*PT'), eb('EB*B*IND*PT***27*30****N*Y')],
      'Outpatient Physical Therapy',
    );
    assert.equal(pt.coverageStatus, 'Active Coverage');
  });

  test('plan status unknown: services with rows are Active, others Not Found', () => {
    const result = interpret([eb('EB*1*IND*PT'), eb('EB*B*IND*MH***27*20****N*Y')], 'unknown');
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    const mh = result.benefits.find((b) => b.serviceType === 'Mental Health')!;
    const chiro = result.benefits.find((b) => b.serviceType === 'Chiropractic')!;
    assert.equal(pt.coverageStatus, 'Active Coverage');
    assert.equal(mh.coverageStatus, 'Active Coverage');
    assert.ok(hasCriterion(mh, 'no active-coverage row and no plan status'));
    assert.equal(mh.confidence?.score, 0.8);
    assert.equal(chiro.coverageStatus, 'Not Found');
    assert.equal(chiro.copay, null);
    assert.ok(
      result.warnings.some((w) => w.code === 'SERVICE_NOT_FOUND' && w.description.includes('Chiropractic')),
    );
    assert.equal(result.confidence.criteria.planStatusKnown, false);
  });
});

describe('plan status', () => {
  const contradictory = [eb('EB*1*IND*30'), eb('EB*6*IND*30'), eb('EB*B*IND*PT***27*30****N*Y')];

  test('active and inactive plan rows with the parser deciding active: entries, lower scores, warning', () => {
    const result = interpret(contradictory, 'active');
    const pt = result.benefits.find((b) => b.serviceType === 'Outpatient Physical Therapy')!;
    assert.equal(pt.copay, 30);
    assert.ok(criteria(pt).includes('the 271 has both active and inactive plan-level rows'));
    assert.equal(pt.confidence?.score, 0.8);
    assert.equal(result.warnings[0]?.code, 'PLAN_STATUS_CONFLICT');
    assert.equal(result.confidence.criteria.planStatusConsistent, false);
  });

  test('active and inactive plan rows and no decision: coverage cannot be determined', () => {
    const result = interpret(contradictory, 'unknown');
    assert.deepEqual(result.benefits, []);
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_STATUS_CONFLICT'],
    );
  });

  test('plan inactive per the parser even if service rows are present', () => {
    const result = interpret([eb('EB*6*IND*30'), eb('EB*B*IND*PT***27*30****N*Y')], 'inactive');
    assert.deepEqual(result.benefits, []);
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_INACTIVE'],
    );
  });
});

describe('check-level confidence', () => {
  test('score is the mean of entry scores; criteria name what holds', () => {
    const result = interpret([PLAN, eb('EB*B*IND*PT***27*30****N*Y'), eb('EB*B*IND*30***27*35****N*Y')]);
    const scores = result.benefits.map((b) => b.confidence!.score!);
    const mean = Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 100) / 100;
    assert.equal(result.confidence.score, mean);
    assert.ok(scores.includes(1) && scores.includes(0.65));
    assert.equal(result.confidence.criteria.allServiceTypesMatchedDirectly, false);
    assert.equal(result.confidence.criteria.costSharingReturned, true);
    assert.equal(result.confidence.criteria.networkKnown, true);
  });
});

describe('shifted elements', () => {
  test('the EB*A and EB*F templates of docs/sandbox-271.md, taken literally, give the same numbers', () => {
    // These are the doc's templates character for character: their percent sits in EB07 and VS in EB10.
    const rows = [
      PLAN,
      eb('EB*A*IND*AD****.2***N*Y'),
      eb('EB*C*IND*AD***23*1500*****Y'),
      eb('EB*F*IND*AD***23****VS*20***Y'),
      eb('EB*F*IND*AD***29****VS*18***Y'),
      eb('EB*A*IND*AD****.4***N*N'),
      eb('EB*A*IND*AF****.2***Y*Y'),
    ];
    const ot = entryOf(rows, 'Occupational Therapy');
    assert.equal(ot.coinsurance, 0.2);
    assert.equal(ot.inNetwork, true);
    assert.equal(ot.authorizationRequired, false);
    assert.equal(ot.visitLimit, 20);
    assert.equal(ot.visitsUsed, 2);
    assert.ok(hasCriterion(ot, 'EB*A elements one place left'));
    assert.ok(hasCriterion(ot, 'EB*F elements one place right'));
    assert.equal(entryOf(rows, 'Speech Therapy').authorizationRequired, true);
  });

  test('an EB*A with a dollar amount in EB07 is not reinterpreted', () => {
    const pt = entryOf([PLAN, eb('EB*A*IND*PT***27*30****N*Y')], 'Outpatient Physical Therapy');
    assert.equal(pt.coinsurance, null);
  });
});

describe('warnings', () => {
  test('a plan-level conflict shared by every entry is one CONFLICTING_VALUES warning', () => {
    const result = interpret([PLAN, eb('EB*G*FAM*30***23*1000*****Y'), eb('EB*G*FAM*30***23*1500*****Y')]);
    const conflicts = result.warnings.filter((w) => w.code === 'CONFLICTING_VALUES');
    assert.equal(conflicts.length, 1);
    assert.ok(
      conflicts[0]!.description.startsWith(
        'Preventive Nutrition, Medical Nutrition, Outpatient Physical Therapy',
      ),
    );
    assert.ok(
      conflicts[0]!.description.includes('conflicting values for family out-of-pocket maximum (1000, 1500)'),
    );
  });
});
