import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payerText, summarizeCheck } from '../../src/checks/summary.ts';
import type { EligibilityCheckRequest } from '../../src/contract/check-request.ts';
import type { EligibilityCheckResponse } from '../../src/contract/check-response.ts';

const request = { tradingPartnerServiceId: 'NOPE' } as EligibilityCheckRequest;

test('the payer reads "name (id)" once it answered, and its id alone when it gave no name', () => {
  const answered = { payer: { payerName: 'Sandbox Health', payerId: 'SANDBOX' } } as EligibilityCheckResponse;
  assert.equal(payerText(answered, request), 'Sandbox Health (SANDBOX)');
  assert.equal(payerText({ payer: { payerId: 'SANDBOX' } } as EligibilityCheckResponse), 'SANDBOX');
  assert.equal(payerText(undefined, request), 'NOPE');
  assert.equal(payerText(undefined, null), undefined);
});

test('a payer outside the directory says so, in the portal and in the CLI summary alike', () => {
  const failed = {
    tradingPartnerServiceId: 'NOPE',
    errors: [{ code: 'SH01', description: 'Unknown payer' }],
  } as unknown as EligibilityCheckResponse;
  assert.equal(payerText(failed, request), 'NOPE (not in the payer directory)');
  const summary = summarizeCheck(failed, request);
  assert.deepEqual(
    summary.plan.find(([label]) => label === 'Payer'),
    ['Payer', 'NOPE (not in the payer directory)'],
  );
});
