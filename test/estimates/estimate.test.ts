/**
 * The estimate rules, one row per case a front desk meets (docs/estimates.md "The rules"), on Table A's
 * numbers (docs/sandbox.md) and variations of them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BenefitEntry, ProductServiceType } from '../../src/contract/check-response.ts';
import type { PricedCharge } from '../../src/contract/estimate.ts';
import { type EstimateInputs, estimateCharges } from '../../src/estimates/estimate.ts';

/** Table A's shared amounts: deductible 1500 (500 left), family 3000 (2000 left), OOP 5000 (3200), family 10000 (8000). */
const TABLE_A_AMOUNTS = {
  coverageStatus: 'Active Coverage',
  inNetwork: true,
  copay: null,
  coinsurance: null,
  deductible: 1500,
  deductibleRemaining: 500,
  familyDeductible: 3000,
  familyDeductibleRemaining: 2000,
  outOfPocketMax: 5000,
  outOfPocketRemaining: 3200,
  familyOutOfPocketMax: 10000,
  familyOutOfPocketRemaining: 8000,
  confidence: { score: 1, criteria: [] },
} as const satisfies Partial<BenefitEntry>;

const entry = (serviceType: ProductServiceType, fields: Partial<BenefitEntry> = {}): BenefitEntry => ({
  serviceType,
  ...TABLE_A_AMOUNTS,
  ...fields,
});

const TABLE_A: BenefitEntry[] = [
  entry('Mental Health', { copay: 25, deductibleApplies: false }),
  entry('Occupational Therapy', { coinsurance: 0.2, deductibleApplies: true }),
  entry('Chiropractic', { copay: 15, deductibleApplies: false }),
  entry('Outpatient Physical Therapy', { copay: 30, deductibleApplies: true }),
  entry('Speech Therapy', { coinsurance: 0.2, deductibleApplies: true }),
];

const CODES: Record<ProductServiceType, string> = {
  'Preventive Nutrition': '98',
  'Medical Nutrition': '98',
  'Outpatient Physical Therapy': 'PT',
  'Mental Health': 'MH',
  'Occupational Therapy': 'AD',
  'Speech Therapy': 'AF',
  Chiropractic: '33',
};

const charge = (serviceType: ProductServiceType, amount: number): PricedCharge => ({
  serviceType,
  serviceTypeCode: CODES[serviceType],
  amount,
  amountSource: 'request',
});

interface Case {
  name: string;
  check: EstimateInputs;
  charges: PricedCharge[];
  /** Per charge: what the patient pays (null: not computed). */
  patient: (number | null)[];
  /** Per charge: the step kinds, in order. */
  kinds?: string[][];
  /** Per charge: a fragment each assumption list must hold (undefined: none expected). */
  assumes?: (string | undefined)[];
}

const tableA = { benefits: TABLE_A, providerNetwork: { status: 'In Network' as const } };
const only = (e: BenefitEntry): EstimateInputs => ({
  benefits: [e],
  providerNetwork: { status: 'In Network' },
});

const CASES: Case[] = [
  {
    name: 'Mental Health 120: the copay, the deductible does not apply',
    check: tableA,
    charges: [charge('Mental Health', 120)],
    patient: [25],
    kinds: [['copay']],
  },
  {
    name: 'Occupational Therapy 800: 500 to the deductible, 20% of the remaining 300',
    check: tableA,
    charges: [charge('Occupational Therapy', 800)],
    patient: [560],
    kinds: [['deductible', 'coinsurance']],
  },
  {
    name: 'Chiropractic 60: the copay',
    check: tableA,
    charges: [charge('Chiropractic', 60)],
    patient: [15],
  },
  {
    name: 'a charge below the copay costs its amount',
    check: tableA,
    charges: [charge('Chiropractic', 10)],
    patient: [10],
  },
  {
    name: 'a charge of 0 costs nothing',
    check: tableA,
    charges: [charge('Occupational Therapy', 0)],
    patient: [0],
    kinds: [[]],
  },
  {
    name: 'a charge below the deductible remaining goes all to it',
    check: tableA,
    charges: [charge('Occupational Therapy', 300)],
    patient: [300],
    kinds: [['deductible']],
  },
  {
    name: 'deductible then copay (PT 200: 200 to the deductible, nothing left for the copay)',
    check: tableA,
    charges: [charge('Outpatient Physical Therapy', 200)],
    patient: [200],
    kinds: [['deductible']],
  },
  {
    name: 'deductible then copay (PT 600: 500 to the deductible, copay 30 of the remaining 100)',
    check: tableA,
    charges: [charge('Outpatient Physical Therapy', 600)],
    patient: [530],
    kinds: [['deductible', 'copay']],
  },
  {
    name: 'charges in order: the second finds the deductible met by the first',
    check: tableA,
    charges: [charge('Occupational Therapy', 800), charge('Speech Therapy', 100)],
    patient: [560, 20],
    kinds: [['deductible', 'coinsurance'], ['coinsurance']],
  },
  {
    name: 'charges in order: the deductible spread over two charges',
    check: tableA,
    charges: [charge('Occupational Therapy', 300), charge('Speech Therapy', 300)],
    patient: [300, 220],
  },
  {
    name: 'family deductible remaining smaller than the individual: the smaller applies',
    check: only(
      entry('Occupational Therapy', {
        coinsurance: 0.2,
        deductibleApplies: true,
        familyDeductibleRemaining: 100,
      }),
    ),
    charges: [charge('Occupational Therapy', 800)],
    patient: [240],
  },
  {
    name: 'only the family deductible remaining known',
    check: only(
      entry('Occupational Therapy', {
        coinsurance: 0.2,
        deductibleApplies: true,
        deductibleRemaining: null,
        familyDeductibleRemaining: 50,
      }),
    ),
    charges: [charge('Occupational Therapy', 100)],
    patient: [60],
  },
  {
    name: 'out-of-pocket cap: the total is capped at the individual remaining',
    check: only(
      entry('Occupational Therapy', { coinsurance: 0.2, deductibleApplies: true, outOfPocketRemaining: 400 }),
    ),
    charges: [charge('Occupational Therapy', 800)],
    patient: [400],
    kinds: [['deductible', 'coinsurance', 'outOfPocketCap']],
  },
  {
    name: 'out-of-pocket cap: the family remaining is the smaller',
    check: only(
      entry('Mental Health', { copay: 25, deductibleApplies: false, familyOutOfPocketRemaining: 10 }),
    ),
    charges: [charge('Mental Health', 120)],
    patient: [10],
  },
  {
    name: 'out-of-pocket met: the patient pays nothing',
    check: only(
      entry('Occupational Therapy', { coinsurance: 0.2, deductibleApplies: true, outOfPocketRemaining: 0 }),
    ),
    charges: [charge('Occupational Therapy', 800)],
    patient: [0],
  },
  {
    name: 'out-of-pocket used up by an earlier charge of the same request',
    check: only(
      entry('Occupational Therapy', { coinsurance: 0.2, deductibleApplies: true, outOfPocketRemaining: 600 }),
    ),
    charges: [charge('Occupational Therapy', 800), charge('Occupational Therapy', 800)],
    patient: [560, 40],
  },
  {
    name: 'not covered: the patient pays all, with a step saying so',
    check: { benefits: [{ serviceType: 'Chiropractic', coverageStatus: 'Not Covered' }] },
    charges: [charge('Chiropractic', 60)],
    patient: [60],
    kinds: [['notCovered']],
  },
  {
    name: 'deductible remaining unknown, deductible applies: assumed met',
    check: only(
      entry('Occupational Therapy', {
        coinsurance: 0.2,
        deductibleApplies: true,
        deductibleRemaining: null,
        familyDeductibleRemaining: null,
      }),
    ),
    charges: [charge('Occupational Therapy', 800)],
    patient: [160],
    assumes: ['deductible remaining unknown: assumed met'],
  },
  {
    name: 'whether the deductible applies unknown, a remaining known: assumed it applies',
    check: only(entry('Occupational Therapy', { coinsurance: 0.2, deductibleApplies: null })),
    charges: [charge('Occupational Therapy', 800)],
    patient: [560],
    assumes: ['assumed it applies'],
  },
  {
    name: 'out-of-pocket unknown: no cap, said so',
    check: only(
      entry('Mental Health', {
        copay: 25,
        deductibleApplies: false,
        outOfPocketRemaining: null,
        familyOutOfPocketRemaining: null,
      }),
    ),
    charges: [charge('Mental Health', 120)],
    patient: [25],
    assumes: ['out-of-pocket remaining unknown: no cap applied'],
  },
  {
    name: 'neither copay nor coinsurance: the deductible part only, said so',
    check: only(entry('Occupational Therapy', { deductibleApplies: true })),
    charges: [charge('Occupational Therapy', 800)],
    patient: [500],
    assumes: ['neither copay nor coinsurance known'],
  },
  {
    name: 'no cost-sharing at all (SBX1000005): cannot be computed',
    check: {
      benefits: [
        { serviceType: 'Mental Health', coverageStatus: 'Active Coverage', copay: null, coinsurance: null },
      ],
    },
    charges: [charge('Mental Health', 120)],
    patient: [null],
  },
  {
    name: 'no benefits (inactive plan): cannot be computed',
    check: { benefits: [] },
    charges: [charge('Mental Health', 120)],
    patient: [null],
  },
  {
    name: 'no entry for the service type: cannot be computed, the others still are',
    check: only(entry('Mental Health', { copay: 25, deductibleApplies: false })),
    charges: [charge('Speech Therapy', 100), charge('Mental Health', 120)],
    patient: [null, 25],
  },
  {
    name: 'Not Found entry: cannot be computed',
    check: { benefits: [{ serviceType: 'Speech Therapy', coverageStatus: 'Not Found' }] },
    charges: [charge('Speech Therapy', 100)],
    patient: [null],
  },
  {
    name: 'provider out of network, in-network amounts only: used, and said so',
    check: { benefits: TABLE_A, providerNetwork: { status: 'Out of Network' } },
    charges: [charge('Mental Health', 120)],
    patient: [25],
    assumes: ['provider is out of network'],
  },
  {
    name: 'coinsurance rounds to the cent',
    check: only(entry('Speech Therapy', { coinsurance: 0.2, deductibleApplies: false })),
    charges: [charge('Speech Therapy', 33.33)],
    patient: [6.67],
  },
  {
    name: 'Table B style: no deductible, copay only (deductible null, applies false)',
    check: only(
      entry('Outpatient Physical Therapy', {
        copay: 20,
        deductibleApplies: false,
        deductible: null,
        deductibleRemaining: null,
        familyDeductible: null,
        familyDeductibleRemaining: null,
        outOfPocketRemaining: 2500,
        familyOutOfPocketRemaining: 5500,
      }),
    ),
    charges: [charge('Outpatient Physical Therapy', 150)],
    patient: [20],
  },
];

for (const c of CASES) {
  test(`estimate: ${c.name}`, () => {
    const result = estimateCharges(c.check, c.charges);
    assert.deepEqual(
      result.estimates.map((e) => e.patientPays),
      c.patient,
    );
    for (const [i, e] of result.estimates.entries()) {
      if (e.patientPays === null) {
        assert.equal(e.planPays, null);
        assert.ok(e.reason, 'a charge not computed says why');
        assert.equal(e.confidence, 0);
        continue;
      }
      assert.equal(Math.round((e.patientPays + (e.planPays ?? 0)) * 100), Math.round(e.amount * 100));
      const stepsTotal = e.steps.reduce((sum, s) => sum + Math.round(s.amount * 100), 0);
      assert.equal(stepsTotal, Math.round(e.patientPays * 100), 'the steps add up to what the patient pays');
      if (c.kinds)
        assert.deepEqual(
          e.steps.map((s) => s.kind),
          c.kinds[i],
        );
      const assumed = c.assumes?.[i];
      if (assumed) {
        assert.ok(
          e.assumptions.some((a) => a.includes(assumed)),
          `${e.assumptions.join('; ')} names ${assumed}`,
        );
        assert.ok(e.confidence < 1, 'an assumption lowers the confidence');
      }
    }
    const computed = result.estimates.filter((e) => e.patientPays !== null);
    const sum = (pick: (e: (typeof computed)[number]) => number) =>
      computed.reduce((s, e) => s + Math.round(pick(e) * 100), 0) / 100;
    assert.deepEqual(result.estimateTotal, {
      patientPays: sum((e) => e.patientPays ?? 0),
      planPays: sum((e) => e.planPays ?? 0),
      notComputed: result.estimates.length - computed.length,
    });
  });
}

test('estimate: at least 20 cases in the table', () => {
  assert.ok(CASES.length >= 20);
});

test('estimate: the worked examples show their arithmetic', () => {
  const [ot] = estimateCharges(tableA, [charge('Occupational Therapy', 800)]).estimates;
  assert.deepEqual(ot?.steps, [
    {
      kind: 'deductible',
      amount: 500,
      basis: 'toward the deductible: $500.00 of the $500.00 remaining (individual $500.00, family $2000.00)',
    },
    { kind: 'coinsurance', amount: 60, basis: 'coinsurance 20% of $300.00 = $60.00' },
  ]);
  assert.deepEqual(ot?.assumptions, []);
  assert.equal(ot?.confidence, 1);
  assert.equal(ot?.planPays, 240);
});

test('estimate: the same charges give the same answer', () => {
  const charges = [charge('Occupational Therapy', 800), charge('Mental Health', 120)];
  assert.deepEqual(estimateCharges(tableA, charges), estimateCharges(tableA, charges));
});

test('estimate: a fee schedule amount is named as an assumption', () => {
  const [e] = estimateCharges(tableA, [
    { ...charge('Mental Health', 120), procedureCode: '90837', amountSource: 'feeSchedule' },
  ]).estimates;
  assert.equal(e?.amountSource, 'feeSchedule');
  assert.equal(e?.procedureCode, '90837');
  assert.ok(e?.assumptions.some((a) => a.includes('fee schedule for procedure 90837')));
});
