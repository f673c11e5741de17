/**
 * Property test over random EB row sets (seeded, so a failure is reproducible from its seed): whatever the
 * rows, no entry reports a remaining larger than its amount, and no per-day, per-episode/admission,
 * lifetime, day-range, Medicare Part A or procedure-specific amount reaches an outpatient entry's copay,
 * deductible or out-of-pocket fields.
 *
 * Every row's EB07 is unique within a set: amounts the entries may use are whole dollars, amounts they must
 * never use end in .37, so a forbidden value can be recognised in any field (a remaining derived as
 * amount − met from whole dollars is itself whole).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry, BenefitsInformation } from '../../src/contract/check-response.ts';

const SETS = Number(process.env.PROPERTY_SETS ?? 400);

/** mulberry32: a small seeded generator. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}

const CODES = ['1', '1', 'A', 'B', 'B', 'C', 'C', 'C', 'G', 'G', 'F', 'I', '6'];
const LEVELS = [undefined, 'IND', 'IND', 'FAM', 'EMP', 'CHD'];
const SERVICE_TYPES = [
  undefined,
  ['30'],
  ['30'],
  ['PT'],
  ['MH'],
  ['AD'],
  ['AF'],
  ['33'],
  ['98'],
  ['AE'],
  ['A4', 'A6'],
  ['47'],
  ['30', '98', 'A4', 'AE'],
];
const INSURANCE = [undefined, undefined, 'MA', 'MB', 'MB', 'PR', 'HN', 'MC'];
/** Period times the entries may read (as amount, remaining or met to date) and the time scopes they must not. */
const ALLOWED_TIMES = [undefined, '21', '22', '23', '23', '24', '25', '27', '29', '29'];
const SCOPED_TIMES = ['7', '26', '32', '33', '36'];
const NETWORKS = [undefined, 'Y', 'Y', 'N', 'W', 'U'];
/** Procedure codes that are not MNT codes (an MNT code names Medical Nutrition by design: rules-scope.test.ts). */
const PROCEDURES = ['80061', '99213', 'G0389', '77057', '97110'];
const PERIODS = ['20250101-20251231', '20260101-20261231', '20260101-20260630'];

interface Generated {
  rows: BenefitsInformation[];
  /** EB07 values no entry may report in an amount field. */
  forbidden: Set<number>;
}

function randomSet(seed: number): Generated {
  const g = generator(seed);
  const rows: BenefitsInformation[] = [];
  const forbidden = new Set<number>();
  const count = 1 + Math.floor(g.next() * 14);
  for (let k = 0; k < count; k++) {
    const row: BenefitsInformation = { code: g.pick(CODES) };
    const level = g.pick(LEVELS);
    if (level) row.coverageLevelCode = level;
    const procedure = g.chance(0.15);
    const stc = procedure ? undefined : g.pick(SERVICE_TYPES);
    if (stc) row.serviceTypeCodes = [...stc];
    if (procedure) {
      row.compositeMedicalProcedureIdentifier = {
        productOrServiceIdQualifierCode: 'HC',
        procedureCode: g.pick(PROCEDURES),
      };
    }
    const insurance = g.pick(INSURANCE);
    if (insurance) row.insuranceTypeCode = insurance;
    const scopedTime = g.chance(0.25);
    const time = scopedTime ? g.pick(SCOPED_TIMES) : g.pick(ALLOWED_TIMES);
    if (time) row.timeQualifierCode = time;
    const dayRange = !scopedTime && g.chance(0.1);
    if (dayRange)
      row.benefitsServiceDelivery = [{ unitForMeasurementCode: 'DA', timePeriodQualifierCode: '7' }];
    const mustNotReach = scopedTime || dayRange || procedure || insurance === 'MA';
    // Unique per set: k * 100 + a random part keeps values apart; .37 marks what must not reach an entry.
    const dollars = k * 100 + Math.floor(g.next() * 90) + 1;
    const amount = mustNotReach ? dollars + 0.37 : dollars;
    if (g.chance(0.9)) {
      row.benefitAmount = String(amount);
      if (mustNotReach) forbidden.add(amount);
    }
    if (row.code === 'A' && g.chance(0.7)) row.benefitPercent = g.pick(['.1', '.2', '0.5']);
    const network = g.pick(NETWORKS);
    if (network) row.inPlanNetworkIndicatorCode = network;
    if (g.chance(0.2)) row.benefitsDateInformation = { plan: g.pick(PERIODS) };
    rows.push(row);
  }
  return { rows, forbidden };
}

const AMOUNT_FIELDS = [
  'copay',
  'deductible',
  'deductibleRemaining',
  'familyDeductible',
  'familyDeductibleRemaining',
  'outOfPocketMax',
  'outOfPocketRemaining',
  'familyOutOfPocketMax',
  'familyOutOfPocketRemaining',
] as const satisfies readonly (keyof BenefitEntry)[];

const PAIRS = [
  ['deductible', 'deductibleRemaining'],
  ['familyDeductible', 'familyDeductibleRemaining'],
  ['outOfPocketMax', 'outOfPocketRemaining'],
  ['familyOutOfPocketMax', 'familyOutOfPocketRemaining'],
] as const;

function check(seed: number): void {
  const { rows, forbidden } = randomSet(seed);
  const asOf = seed % 3 === 0 ? undefined : seed % 3 === 1 ? '20260315' : '20251001';
  const result = interpretBenefits({
    benefitsInformation: rows,
    planActive: seed % 4 === 0 ? undefined : true,
    requestedServiceTypeCodes: [],
    ...(asOf ? { asOf } : {}),
  });
  const where = () => `seed ${seed}: ${JSON.stringify(rows)}`;
  for (const entry of result.benefits) {
    for (const [amountField, remainingField] of PAIRS) {
      const amount = entry[amountField];
      const remaining = entry[remainingField];
      if (typeof amount === 'number' && typeof remaining === 'number') {
        assert.ok(
          remaining <= amount,
          `${entry.serviceType} ${remainingField} ${remaining} > ${amount}; ${where()}`,
        );
      }
    }
    for (const field of AMOUNT_FIELDS) {
      const value = entry[field];
      if (typeof value === 'number') {
        assert.ok(
          !forbidden.has(value),
          `${entry.serviceType}.${field} = ${value} is out of scope; ${where()}`,
        );
      }
    }
  }
}

test(`${SETS} random EB row sets: remaining ≤ amount, no out-of-scope amount in an outpatient entry`, () => {
  for (let seed = 1; seed <= SETS; seed++) check(seed);
});

test('the generator makes every kind of out-of-scope row (the property is not vacuous)', () => {
  let scoped = 0;
  let partA = 0;
  let procedures = 0;
  let remainingsReported = 0;
  for (let seed = 1; seed <= SETS; seed++) {
    const { rows } = randomSet(seed);
    for (const r of rows) {
      if (r.timeQualifierCode && ['7', '26', '32', '33', '36'].includes(r.timeQualifierCode)) scoped++;
      if (r.insuranceTypeCode === 'MA') partA++;
      if (r.compositeMedicalProcedureIdentifier) procedures++;
    }
    const result = interpretBenefits({
      benefitsInformation: rows,
      planActive: true,
      requestedServiceTypeCodes: [],
    });
    if (result.benefits.some((b) => typeof b.deductibleRemaining === 'number')) remainingsReported++;
  }
  assert.ok(scoped > 100 && partA > 100 && procedures > 50, `${scoped} ${partA} ${procedures}`);
  assert.ok(remainingsReported > 20, `remaining reported in ${remainingsReported} sets`);
});
