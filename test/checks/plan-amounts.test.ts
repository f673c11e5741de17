/** Plan-level amounts read once from the 271 rows, or from the entries when they all agree. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryRepeatsPlan, planAmountsOf } from '../../src/checks/plan-amounts.ts';
import type {
  BenefitEntry,
  BenefitsInformation,
  EligibilityCheckResponse,
} from '../../src/contract/check-response.ts';

const body = (extra: Partial<EligibilityCheckResponse>): EligibilityCheckResponse => ({
  id: 'x',
  status: 'COMPLETED',
  ...extra,
});
const row = (
  code: string,
  level: string,
  time: string,
  amount: string,
  network = 'Y',
  types: string[] | undefined = ['30'],
): BenefitsInformation => ({
  code,
  coverageLevelCode: level,
  timeQualifierCode: time,
  benefitAmount: amount,
  inPlanNetworkIndicatorCode: network,
  ...(types ? { serviceTypeCodes: types } : {}),
});

test('calendar-year amounts and what remains, individual and family, in network', () => {
  const a = planAmountsOf(
    body({
      benefitsInformation: [
        row('C', 'IND', '23', '1500'),
        row('C', 'IND', '29', '500'),
        row('C', 'FAM', '23', '3000'),
        row('C', 'FAM', '29', '2000'),
        row('G', 'IND', '23', '5000'),
        row('G', 'IND', '29', '3200'),
        // Out-of-network and service-level rows are not the plan's in-network amounts.
        row('C', 'IND', '23', '9999', 'N'),
        row('C', 'IND', '23', '7777', 'Y', ['98']),
      ],
    }),
  );
  assert.deepEqual(a, {
    deductible: { individual: { total: 1500, remaining: 500 }, family: { total: 3000, remaining: 2000 } },
    outOfPocket: { individual: { total: 5000, remaining: 3200 }, family: { total: null, remaining: null } },
    network: 'in',
  });
});

test('year to date met gives what is left; out-of-network amounts only when there are no others', () => {
  const a = planAmountsOf(
    body({
      benefitsInformation: [row('C', 'IND', '22', '1000', 'N', undefined), row('C', 'IND', '24', '250', 'N')],
    }),
  );
  assert.equal(a?.network, 'out');
  assert.deepEqual(a?.deductible.individual, { total: 1000, remaining: 750 });
});

const entry = (deductible: number | null): BenefitEntry => ({
  serviceType: 'Chiropractic',
  deductible,
  deductibleRemaining: 100,
  inNetwork: true,
});

test('without plan rows, the entries give the amounts when they all agree, and nothing when they differ', () => {
  const agree = planAmountsOf(
    body({ benefits: [entry(500), { ...entry(500), serviceType: 'Mental Health' }] }),
  );
  assert.deepEqual(agree?.deductible.individual, { total: 500, remaining: 100 });
  assert.ok(entryRepeatsPlan(entry(500), agree!));
  assert.ok(!entryRepeatsPlan(entry(600), agree!));
  assert.equal(planAmountsOf(body({ benefits: [entry(500), entry(600)] })), undefined);
  assert.equal(planAmountsOf(body({ benefits: [] })), undefined);
  assert.equal(
    planAmountsOf(body({ benefitsInformation: [{ code: '1', serviceTypeCodes: ['30'] }] })),
    undefined,
  );
});
