/** The verdict read off a finished body: one row per kind of answer a front desk meets. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verdictOf } from '../../src/checks/verdict.ts';
import type { EligibilityCheckResponse } from '../../src/contract/check-response.ts';

const completed = (extra: Partial<EligibilityCheckResponse>): EligibilityCheckResponse => ({
  id: 'x',
  status: 'COMPLETED',
  ...extra,
});

const NO_USABLE_SUMMARY =
  'Coverage could not be determined: the payer says the plan is active but lists no benefits for the services checked';

const CASES: [string, EligibilityCheckResponse, ReturnType<typeof verdictOf>][] = [
  ['in progress has none', { id: 'x', status: 'IN_PROGRESS' }, undefined],
  [
    'active with plan and network',
    completed({
      planActive: true,
      planInformation: { planName: 'Gold' },
      providerNetwork: { status: 'Out of Network' },
    }),
    { status: 'ACTIVE', summary: 'Coverage active: Gold, out of network' },
  ],
  [
    'active with only planCoverage',
    completed({ planActive: true, planCoverage: 'Medicare Part B' }),
    { status: 'ACTIVE', summary: 'Coverage active: Medicare Part B' },
  ],
  [
    'active, nothing named',
    completed({ planActive: true }),
    { status: 'ACTIVE', summary: 'Coverage active' },
  ],
  [
    'inactive, plan range ends',
    completed({
      planActive: false,
      planDateInformation: { plan: '20250101-20251231', eligibility: '20250101' },
    }),
    { status: 'INACTIVE', summary: 'Coverage INACTIVE since 2025-12-31', since: '20251231' },
  ],
  [
    'inactive, only an eligibility range',
    completed({ planActive: false, planDateInformation: { eligibility: '20240101-20240630' } }),
    { status: 'INACTIVE', summary: 'Coverage INACTIVE since 2024-06-30', since: '20240630' },
  ],
  [
    'inactive, a single date is a beginning, not an end',
    completed({ planActive: false, planDateInformation: { eligibility: '20250101' } }),
    { status: 'INACTIVE', summary: 'Coverage INACTIVE' },
  ],
  [
    'completed without a plan status',
    completed({ benefits: [] }),
    {
      status: 'UNDETERMINED',
      summary: 'Coverage could not be determined: the payer answered without a plan status',
    },
  ],
  [
    // SBX1000006: active rows only for pharmacy and vision, nothing the product reports (issue 26).
    'active plan but nothing usable for any service checked',
    completed({
      planActive: true,
      planInformation: { groupNumber: 'G-55667' },
      benefits: [],
      warnings: [{ code: 'NO_USABLE_BENEFITS', description: 'coverage cannot be determined.' }],
    }),
    {
      status: 'UNDETERMINED',
      summary: NO_USABLE_SUMMARY,
    },
  ],
  [
    'active with other warnings stays active',
    completed({
      planActive: true,
      warnings: [{ code: 'PLAN_LEVEL_ONLY', description: 'x' }],
    }),
    { status: 'ACTIVE', summary: 'Coverage active' },
  ],
  [
    'failed: the first error speaks',
    {
      id: 'x',
      status: 'FAILED',
      errors: [
        {
          code: '72',
          description: 'Invalid/Missing Subscriber/Insured ID',
          followupAction: 'Please Correct and Resubmit',
        },
        { code: '73', description: 'Invalid/Missing Subscriber/Insured Name' },
      ],
    },
    {
      status: 'FAILED',
      summary: 'Could not check: Invalid/Missing Subscriber/Insured ID (Please Correct and Resubmit)',
      reason: '72',
    },
  ],
  [
    'failed without errors still says so',
    { id: 'x', status: 'FAILED' },
    { status: 'FAILED', summary: 'Could not check: the check failed without an error' },
  ],
];

for (const [name, body, expected] of CASES) {
  test(`verdict: ${name}`, () => assert.deepEqual(verdictOf(body), expected));
}
