/** Plan status from plan-level rows: inactive and active rows contradict each other only within one insurance type. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BenefitsInformation } from '../../src/contract/check-response.ts';
import { readPlan } from '../../src/x12/plan.ts';

const row = (code: string, insuranceTypeCode?: string): BenefitsInformation => ({
  code,
  serviceTypeCodes: ['30'],
  ...(insuranceTypeCode ? { insuranceTypeCode } : {}),
});

test('Medicare Part A not entitled beside Part B active: active, no contradiction', () => {
  const plan = readPlan([row('6', 'MA'), row('1', 'MB')], '20260315');
  assert.equal(plan.active, true);
  assert.equal(plan.conflict, undefined);
});

test('active and inactive about the same insurance type still contradict, and the conflict is named', () => {
  const plan = readPlan([row('6', 'MB'), row('1', 'MB')], '20260315');
  assert.notEqual(plan.conflict, undefined);
});

test('a row without an insurance type may be about any: it contradicts', () => {
  const plan = readPlan([row('6'), row('1', 'MB')], '20260315');
  assert.notEqual(plan.conflict, undefined);
});

test('only inactive rows: inactive', () => {
  assert.equal(readPlan([row('6', 'MA'), row('6', 'MB')], undefined).active, false);
});
