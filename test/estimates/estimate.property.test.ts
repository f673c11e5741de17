/**
 * Properties of the estimate over random benefit entries and charges (seeded, so a failure is reproducible
 * from its seed): patient plus plan is the amount, nothing is negative, the patient never pays more than
 * the out-of-pocket remaining, and paying more never costs the patient less.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BenefitEntry } from '../../src/contract/check-response.ts';
import type { PricedCharge } from '../../src/contract/estimate.ts';
import { estimateCharges } from '../../src/estimates/estimate.ts';

/** mulberry32: a small seeded generator. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomEntry(random: () => number): BenefitEntry {
  const maybe = <T>(value: T): T | null => (random() < 0.25 ? null : value);
  const dollars = (max: number) => Math.round(random() * max * 100) / 100;
  const covered = random() < 0.9;
  if (!covered) return { serviceType: 'Occupational Therapy', coverageStatus: 'Not Covered' };
  return {
    serviceType: 'Occupational Therapy',
    coverageStatus: 'Active Coverage',
    inNetwork: random() < 0.8 ? true : maybe(false),
    copay: random() < 0.5 ? maybe(dollars(80)) : null,
    coinsurance: maybe(Math.round(random() * 100) / 100),
    deductibleApplies: random() < 0.4 ? null : random() < 0.5,
    deductibleRemaining: maybe(dollars(3000)),
    familyDeductibleRemaining: maybe(dollars(6000)),
    outOfPocketRemaining: maybe(dollars(5000)),
    familyOutOfPocketRemaining: maybe(dollars(10000)),
  };
}

const charge = (amount: number): PricedCharge => ({
  serviceType: 'Occupational Therapy',
  serviceTypeCode: 'AD',
  amount,
  amountSource: 'request',
});

const c = (dollars: number | null) => Math.round((dollars ?? 0) * 100);
const RUNS = 3000;

test('estimate properties: sums, signs, the cap and monotony over random entries', () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const random = generator(seed);
    const entry = randomEntry(random);
    const amounts = [0, 1, 2, 3].map(() => Math.round(random() * 200000) / 100);
    const result = estimateCharges({ benefits: [entry] }, amounts.map(charge));
    const caps = [entry.outOfPocketRemaining, entry.familyOutOfPocketRemaining].filter(
      (n): n is number => typeof n === 'number',
    );
    let paidSoFar = 0;
    for (const e of result.estimates) {
      if (e.patientPays === null) continue;
      const where = `seed ${seed}: ${JSON.stringify(entry)} ${e.amount}`;
      assert.equal(c(e.patientPays) + c(e.planPays), c(e.amount), `patient + plan = amount, ${where}`);
      assert.ok(e.patientPays >= 0 && (e.planPays ?? -1) >= 0, `never negative, ${where}`);
      paidSoFar += c(e.patientPays);
      if (entry.coverageStatus === 'Active Coverage' && caps.length > 0)
        assert.ok(paidSoFar <= c(Math.min(...caps)), `never above the out-of-pocket remaining, ${where}`);
      const steps = e.steps.reduce((s, step) => s + c(step.amount), 0);
      assert.equal(steps, c(e.patientPays), `the steps add up, ${where}`);
    }
    // Monotone: alone, a larger amount never costs the patient less.
    const sorted = [...amounts].sort((a, b) => a - b);
    const alone = sorted.map((a) => estimateCharges({ benefits: [entry] }, [charge(a)]).estimates[0]!);
    for (let i = 1; i < alone.length; i++) {
      assert.ok(
        c(alone[i]!.patientPays) >= c(alone[i - 1]!.patientPays),
        `monotone in the amount, seed ${seed}: ${JSON.stringify(entry)} ${sorted[i - 1]} → ${sorted[i]}`,
      );
    }
  }
});
