/**
 * The comparison behind `coverage.changed` (src/checks/coverage-changes.ts): one test per kind of change,
 * what is deliberately not a change, and property-style tests that a result compared with itself (or an
 * equal copy) is never a change, over generated results and over every sandbox member's real answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coverageChanges, describeCoverageChange } from '../../src/checks/coverage-changes.ts';
import {
  type BenefitEntry,
  type EligibilityCheckResponse,
  PRODUCT_SERVICE_TYPES,
  type ProductServiceType,
} from '../../src/contract/check-response.ts';
import { COVERAGE_CHANGE_KINDS } from '../../src/contract/webhook-events.ts';
import { createSandboxConnector, SANDBOX_PAYER } from '../../src/payers/sandbox/index.ts';
import { MEMBERS } from '../../src/payers/sandbox/members.ts';
import { processCheck } from '../../src/workers/process-check.ts';
import { SANDBOX_PROVIDER } from '../helpers/service.ts';

const entry = (serviceType: ProductServiceType, extra: Partial<BenefitEntry> = {}): BenefitEntry => ({
  serviceType,
  coverageStatus: 'Active Coverage',
  inNetwork: true,
  deductibleRemaining: 500,
  familyDeductibleRemaining: 2000,
  outOfPocketRemaining: 3200,
  familyOutOfPocketRemaining: 8000,
  visitLimit: 20,
  visitsUsed: 4,
  ...extra,
});

/** A completed result like Table A's: active, named plan and group, in network, every service type. */
const result = (extra: Partial<EligibilityCheckResponse> = {}): EligibilityCheckResponse => ({
  id: 'c',
  status: 'COMPLETED',
  planActive: true,
  planInformation: { planName: 'Sandbox PPO Gold', groupNumber: 'G-12345' },
  providerNetwork: { status: 'In Network' },
  benefits: PRODUCT_SERVICE_TYPES.map((t) => entry(t)),
  ...extra,
});

/** The result with one service type's entry changed. */
const withEntry = (serviceType: ProductServiceType, extra: Partial<BenefitEntry>) =>
  result({ benefits: PRODUCT_SERVICE_TYPES.map((t) => entry(t, t === serviceType ? extra : {})) });

/** The result with every entry's plan-level amounts changed (they are the plan's, repeated per entry). */
const withPlanAmounts = (extra: Partial<BenefitEntry>) =>
  result({ benefits: PRODUCT_SERVICE_TYPES.map((t) => entry(t, extra)) });

describe('each kind of change', () => {
  test('plan active → inactive, and back', () => {
    const ended = result({ planActive: false, planInformation: undefined, benefits: [] });
    assert.deepEqual(coverageChanges(result(), ended), [
      { kind: 'PLAN_STATUS', field: 'planActive', before: true, after: false },
    ]);
    assert.deepEqual(coverageChanges(ended, result()), [
      { kind: 'PLAN_STATUS', field: 'planActive', before: false, after: true },
    ]);
  });

  test('plan name changed', () => {
    const other = result({ planInformation: { planName: 'Sandbox HMO Silver', groupNumber: 'G-12345' } });
    assert.deepEqual(coverageChanges(result(), other), [
      {
        kind: 'PLAN_NAME',
        field: 'planInformation.planName',
        before: 'Sandbox PPO Gold',
        after: 'Sandbox HMO Silver',
      },
    ]);
  });

  test('group changed', () => {
    const other = result({ planInformation: { planName: 'Sandbox PPO Gold', groupNumber: 'G-67890' } });
    assert.deepEqual(coverageChanges(result(), other), [
      { kind: 'GROUP_NUMBER', field: 'planInformation.groupNumber', before: 'G-12345', after: 'G-67890' },
    ]);
  });

  test('network status changed', () => {
    const out = result({ providerNetwork: { status: 'Out of Network' } });
    assert.deepEqual(coverageChanges(result(), out), [
      {
        kind: 'NETWORK_STATUS',
        field: 'providerNetwork.status',
        before: 'In Network',
        after: 'Out of Network',
      },
    ]);
  });

  test("a service type's coverage status changed", () => {
    const after = withEntry('Chiropractic', { coverageStatus: 'Not Covered' });
    assert.deepEqual(coverageChanges(result(), after), [
      {
        kind: 'COVERAGE_STATUS',
        field: 'coverageStatus',
        serviceType: 'Chiropractic',
        before: 'Active Coverage',
        after: 'Not Covered',
      },
    ]);
  });

  test('deductible met, individual and family, reported once for the plan (not per service type)', () => {
    assert.deepEqual(coverageChanges(result(), withPlanAmounts({ deductibleRemaining: 0 })), [
      { kind: 'DEDUCTIBLE_MET', field: 'deductibleRemaining', before: 500, after: 0 },
    ]);
    assert.deepEqual(coverageChanges(result(), withPlanAmounts({ familyDeductibleRemaining: 0 })), [
      { kind: 'DEDUCTIBLE_MET', field: 'familyDeductibleRemaining', before: 2000, after: 0 },
    ]);
  });

  test('out-of-pocket maximum met, individual and family', () => {
    const both = withPlanAmounts({ outOfPocketRemaining: 0, familyOutOfPocketRemaining: 0 });
    assert.deepEqual(coverageChanges(result(), both), [
      { kind: 'OUT_OF_POCKET_MET', field: 'outOfPocketRemaining', before: 3200, after: 0 },
      { kind: 'OUT_OF_POCKET_MET', field: 'familyOutOfPocketRemaining', before: 8000, after: 0 },
    ]);
  });

  test('visits exhausted', () => {
    const after = withEntry('Outpatient Physical Therapy', { visitsUsed: 20 });
    assert.deepEqual(coverageChanges(result(), after), [
      {
        kind: 'VISITS_EXHAUSTED',
        field: 'visitsUsed',
        serviceType: 'Outpatient Physical Therapy',
        before: 4,
        after: 20,
        visitLimit: 20,
      },
    ]);
  });

  test('several changes at once come in a fixed order: plan first, then service types in product order', () => {
    const after = result({
      planInformation: { planName: 'Sandbox PPO Gold', groupNumber: 'G-2' },
      benefits: PRODUCT_SERVICE_TYPES.map((t) =>
        entry(t, {
          deductibleRemaining: 0,
          ...(t === 'Chiropractic' ? { visitsUsed: 20 } : {}),
          ...(t === 'Mental Health' ? { coverageStatus: 'Not Covered' as const } : {}),
        }),
      ),
    });
    assert.deepEqual(
      coverageChanges(result(), after).map((c) => [c.kind, c.serviceType]),
      [
        ['GROUP_NUMBER', undefined],
        ['DEDUCTIBLE_MET', undefined],
        ['COVERAGE_STATUS', 'Mental Health'],
        ['VISITS_EXHAUSTED', 'Chiropractic'],
      ],
    );
  });
});

describe('what is not a change', () => {
  test('a value one of the two answers leaves out is unknown, not changed', () => {
    const silent = result({
      planActive: undefined,
      planInformation: {},
      providerNetwork: undefined,
      benefits: PRODUCT_SERVICE_TYPES.map((t) =>
        entry(t, { coverageStatus: undefined, deductibleRemaining: null, visitsUsed: null }),
      ),
    });
    assert.deepEqual(coverageChanges(result(), silent), []);
    assert.deepEqual(coverageChanges(silent, result()), []);
  });

  test('a service type only one answer has (another request, or a plan that ended) is not compared', () => {
    const fewer = result({
      benefits: [entry('Chiropractic', { coverageStatus: 'Not Covered', visitsUsed: 20 })],
    });
    const fewerBefore = result({ benefits: [entry('Mental Health')] });
    assert.deepEqual(coverageChanges(fewerBefore, fewer), []);
  });

  test('amounts moving without reaching the threshold, or already there before', () => {
    assert.deepEqual(coverageChanges(result(), withPlanAmounts({ deductibleRemaining: 100 })), []);
    const met = withPlanAmounts({ deductibleRemaining: 0 });
    assert.deepEqual(coverageChanges(met, met), []);
    // A new benefit year resets the deductible: not "met", and not reported.
    assert.deepEqual(coverageChanges(met, result()), []);
    const used = withEntry('Chiropractic', { visitsUsed: 20 });
    assert.deepEqual(coverageChanges(used, withEntry('Chiropractic', { visitsUsed: 21 })), []);
    assert.deepEqual(coverageChanges(result(), withEntry('Chiropractic', { visitsUsed: 19 })), []);
  });

  test('plan name and group compared without regard to case and spacing', () => {
    const shouted = result({ planInformation: { planName: ' SANDBOX  PPO GOLD', groupNumber: 'g-12345' } });
    assert.deepEqual(coverageChanges(result(), shouted), []);
  });
});

/** A small deterministic generator (mulberry32): the same results on every run, no flakiness. */
function generator(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick };
}

function randomResult(seed: number): EligibilityCheckResponse {
  const { next, pick } = generator(seed);
  const maybe = <T>(v: T): T | undefined => (next() < 0.2 ? undefined : v);
  const amount = () => pick([null, 0, 0.5, 100, 500, 3200]);
  return {
    id: `c${seed}`,
    status: 'COMPLETED',
    planActive: maybe(next() < 0.7),
    planInformation: maybe({
      planName: maybe(pick(['Gold', 'Silver', ' gold '])),
      groupNumber: maybe(pick(['G-1', 'G-2'])),
    }),
    providerNetwork: maybe({ status: maybe(pick(['In Network', 'Out of Network'] as const)) }),
    benefits: PRODUCT_SERVICE_TYPES.filter(() => next() < 0.8).map((t) =>
      entry(t, {
        coverageStatus: maybe(pick(['Active Coverage', 'Not Covered', 'Not Found'] as const)),
        deductibleRemaining: amount(),
        familyDeductibleRemaining: amount(),
        outOfPocketRemaining: amount(),
        familyOutOfPocketRemaining: amount(),
        visitLimit: pick([null, 0, 6, 20]),
        visitsUsed: pick([null, 0, 4, 6, 20, 25]),
      }),
    ),
  };
}

describe('a result compared with itself is never a change', () => {
  test('500 generated results, compared with themselves and with equal copies', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = randomResult(seed);
      assert.deepEqual(coverageChanges(r, r), [], `seed ${seed}`);
      assert.deepEqual(coverageChanges(r, structuredClone(r)), [], `seed ${seed} (copy)`);
    }
  });

  test('the generated pairs do find changes of every kind (the generator is not too tame)', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 500; seed++) {
      for (const c of coverageChanges(randomResult(seed), randomResult(seed + 1000))) seen.add(c.kind);
    }
    assert.deepEqual([...seen].sort(), [...COVERAGE_CHANGE_KINDS].sort());
  });

  test("every sandbox member's real answer (through X12, the parser and the interpreter)", async () => {
    const connector = createSandboxConnector({ latencyMs: 0 });
    const payer = { ...SANDBOX_PAYER, connector };
    for (const m of MEMBERS.filter((x) => x.scenario.kind === 'normal')) {
      for (const dateOfService of ['20261031', '20261101']) {
        const outcome = await processCheck(
          '01a20797-6339-708a-b3b2-fc1391ac3a22',
          {
            tradingPartnerServiceId: 'SANDBOX',
            provider: SANDBOX_PROVIDER,
            subscriber: {
              memberId: m.memberId,
              firstName: m.firstName,
              lastName: m.lastName,
              dateOfBirth: m.dateOfBirth,
            },
            encounter: { dateOfService },
          },
          { payer, senderId: 'ELIGSVC', timeoutMs: 2000, signal: new AbortController().signal },
        );
        assert.equal(outcome.kind, 'finished');
        const body = JSON.parse((outcome as { body: string }).body) as EligibilityCheckResponse;
        assert.deepEqual(coverageChanges(body, body), [], `${m.memberId} on ${dateOfService}`);
      }
    }
  });
});

test('each kind reads as a sentence a person can act on', () => {
  assert.equal(
    describeCoverageChange({ kind: 'PLAN_STATUS', field: 'planActive', before: true, after: false }),
    'Plan is no longer active',
  );
  assert.equal(
    describeCoverageChange({
      kind: 'DEDUCTIBLE_MET',
      field: 'familyDeductibleRemaining',
      before: 2000,
      after: 0,
    }),
    'The family deductible is met ($2,000 remaining before, $0 now)',
  );
  assert.equal(
    describeCoverageChange({
      kind: 'VISITS_EXHAUSTED',
      field: 'visitsUsed',
      serviceType: 'Chiropractic',
      before: 5,
      after: 12,
      visitLimit: 12,
    }),
    'Chiropractic: visits used up (12 of 12; 5 before)',
  );
});
