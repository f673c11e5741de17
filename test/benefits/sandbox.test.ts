/**
 * The sandbox tables (docs/sandbox.md): the exact numbers of Table A and Table B and
 * the scenarios SBX1000003–6 must come out of 271 rows written per docs/sandbox-271.md.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry } from '../../src/contract/check-response.ts';
import { SBX1000001, SBX1000002, SBX1000003, SBX1000004, SBX1000005, SBX1000006 } from './sandbox-members.ts';

const run = (rows: typeof SBX1000001, planActive: boolean | undefined) =>
  interpretBenefits({ benefitsInformation: rows, planActive, requestedServiceTypeCodes: [] });

const withoutConfidence = ({ confidence: _, ...rest }: BenefitEntry) => rest;

const TABLE_A_PLAN = {
  coverageStatus: 'Active Coverage',
  inNetwork: true,
  deductible: 1500,
  deductibleRemaining: 500,
  familyDeductible: 3000,
  familyDeductibleRemaining: 2000,
  outOfPocketMax: 5000,
  outOfPocketRemaining: 3200,
  familyOutOfPocketMax: 10000,
  familyOutOfPocketRemaining: 8000,
} as const;

// serviceType, copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, authorizationRequired
const TABLE_A: [
  BenefitEntry['serviceType'],
  number | null,
  number | null,
  boolean,
  number | null,
  number | null,
  boolean,
][] = [
  ['Preventive Nutrition', 0, null, false, 6, 1, false],
  ['Medical Nutrition', 20, null, false, 12, 0, false],
  ['Outpatient Physical Therapy', 30, null, true, 20, 4, false],
  ['Mental Health', 25, null, false, null, null, true],
  ['Occupational Therapy', null, 0.2, true, 20, 2, false],
  ['Speech Therapy', null, 0.2, true, 20, 0, true],
  ['Chiropractic', 15, null, false, 12, 5, false],
];

describe('Table A (SBX1000001)', () => {
  const result = run(SBX1000001, true);

  test('one entry per product service type, in the product order', () => {
    assert.deepEqual(
      result.benefits.map((b) => b.serviceType),
      TABLE_A.map((r) => r[0]),
    );
  });

  for (const [serviceType, copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, auth] of TABLE_A) {
    test(`${serviceType}: every field`, () => {
      const entry = result.benefits.find((b) => b.serviceType === serviceType)!;
      assert.deepEqual(withoutConfidence(entry), {
        serviceType,
        ...TABLE_A_PLAN,
        copay,
        coinsurance,
        deductibleApplies,
        visitLimit,
        visitsUsed,
        authorizationRequired: auth,
      });
    });
  }

  test('matched directly: full confidence, nutrition slightly lower for being read from MSG text', () => {
    for (const entry of result.benefits) {
      const nutrition = entry.serviceType.endsWith('Nutrition');
      assert.equal(entry.confidence?.score, nutrition ? 0.95 : 1, entry.serviceType);
      const expected = nutrition
        ? 'nutrition benefit identified from MSG text (98)'
        : 'service type matched directly';
      assert.ok(
        entry.confidence?.criteria.some((c) => c.startsWith(expected)),
        entry.serviceType,
      );
    }
  });

  test('no warnings, check-level criteria all hold except direct matching of nutrition', () => {
    assert.deepEqual(result.warnings, []);
    assert.equal(result.confidence.score, 0.99);
    assert.deepEqual(result.confidence.criteria, {
      planStatusKnown: true,
      planStatusConsistent: true,
      benefitsDetermined: true,
      allServiceTypesMatchedDirectly: true,
      costSharingReturned: true,
      networkKnown: true,
      noConflicts: true,
    });
  });
});

const TABLE_B: [BenefitEntry['serviceType'], number, boolean][] = [
  ['Preventive Nutrition', 0, false],
  ['Medical Nutrition', 10, false],
  ['Outpatient Physical Therapy', 20, true],
  ['Mental Health', 20, true],
  ['Occupational Therapy', 20, true],
  ['Speech Therapy', 20, true],
];

describe('Table B (SBX1000002, SBX1000010)', () => {
  const result = run(SBX1000002, true);

  for (const [serviceType, copay, auth] of TABLE_B) {
    test(`${serviceType}: every field`, () => {
      const entry = result.benefits.find((b) => b.serviceType === serviceType)!;
      assert.deepEqual(withoutConfidence(entry), {
        serviceType,
        coverageStatus: 'Active Coverage',
        inNetwork: true,
        copay,
        coinsurance: null,
        deductible: null,
        deductibleRemaining: null,
        familyDeductible: null,
        familyDeductibleRemaining: null,
        deductibleApplies: false,
        outOfPocketMax: 3000,
        outOfPocketRemaining: 2500,
        familyOutOfPocketMax: 6000,
        familyOutOfPocketRemaining: 5500,
        visitLimit: null,
        visitsUsed: null,
        authorizationRequired: auth,
      });
    });
  }

  test('Chiropractic: Not Covered with no cost-sharing fields', () => {
    const entry = result.benefits.find((b) => b.serviceType === 'Chiropractic')!;
    assert.deepEqual(withoutConfidence(entry), {
      serviceType: 'Chiropractic',
      coverageStatus: 'Not Covered',
    });
    assert.equal(entry.confidence?.score, 1);
    assert.ok(entry.confidence?.criteria.includes('not covered (EB*I for 33)'));
  });

  test('seven entries, no warnings', () => {
    assert.equal(result.benefits.length, 7);
    assert.deepEqual(result.warnings, []);
  });
});

describe('scenarios', () => {
  test('SBX1000003: plan inactive → no benefits, PLAN_INACTIVE', () => {
    const result = run(SBX1000003, false);
    assert.deepEqual(result.benefits, []);
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_INACTIVE'],
    );
    assert.equal(result.confidence.score, 1);
    assert.equal(result.confidence.criteria.planStatusKnown, true);
    assert.equal(result.confidence.criteria.benefitsDetermined, false);
  });

  test('SBX1000003 also when the parser leaves planActive undefined: the EB*6 row decides', () => {
    const result = run(SBX1000003, undefined);
    assert.deepEqual(result.benefits, []);
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_INACTIVE'],
    );
  });

  test('SBX1000004: seven entries from plan level, lower confidence, criterion says so', () => {
    const result = run(SBX1000004, true);
    assert.equal(result.benefits.length, 7);
    for (const entry of result.benefits) {
      assert.deepEqual(withoutConfidence(entry), {
        serviceType: entry.serviceType,
        ...TABLE_A_PLAN,
        copay: 35,
        coinsurance: 0.2,
        deductibleApplies: true,
        visitLimit: null,
        visitsUsed: null,
        authorizationRequired: false,
      });
      assert.equal(entry.confidence?.score, 0.65);
      assert.ok(entry.confidence?.criteria.includes('derived from plan-level benefits (30)'));
      assert.ok(entry.confidence?.criteria.includes('deductibleApplies from the plan-level deductible'));
    }
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_LEVEL_ONLY'],
    );
    assert.equal(result.confidence.criteria.allServiceTypesMatchedDirectly, false);
  });

  test('SBX1000005: seven Active Coverage entries, all cost fields null, low confidence', () => {
    const result = run(SBX1000005, true);
    assert.equal(result.benefits.length, 7);
    for (const entry of result.benefits) {
      assert.deepEqual(withoutConfidence(entry), {
        serviceType: entry.serviceType,
        coverageStatus: 'Active Coverage',
        inNetwork: null,
        copay: null,
        coinsurance: null,
        deductible: null,
        deductibleRemaining: null,
        familyDeductible: null,
        familyDeductibleRemaining: null,
        deductibleApplies: null,
        outOfPocketMax: null,
        outOfPocketRemaining: null,
        familyOutOfPocketMax: null,
        familyOutOfPocketRemaining: null,
        visitLimit: null,
        visitsUsed: null,
        authorizationRequired: null,
      });
      assert.ok(entry.confidence!.score! <= 0.5, entry.serviceType);
      assert.ok(entry.confidence?.criteria.includes('no cost sharing returned'));
    }
    const nutrition = result.benefits.filter((b) => b.serviceType.endsWith('Nutrition'));
    for (const entry of nutrition) {
      assert.equal(entry.confidence?.score, 0.25);
      assert.ok(
        entry.confidence?.criteria.some((c) => c.startsWith('matched through general service type 98')),
      );
    }
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['SERVICE_TYPE_FALLBACK', 'NO_COST_SHARING'],
    );
    assert.equal(result.confidence.criteria.costSharingReturned, false);
  });

  test('SBX1000006: nothing usable for any product service type → []', () => {
    for (const planActive of [undefined, true]) {
      const result = run(SBX1000006, planActive);
      assert.deepEqual(result.benefits, []);
      assert.deepEqual(
        result.warnings.map((w) => w.code),
        ['NO_USABLE_BENEFITS'],
      );
      assert.equal(result.confidence.score, null);
    }
  });
});
