/**
 * Shared helpers for the rule tests: run the interpreter on hand-written rows and look an entry up.
 */
import assert from 'node:assert/strict';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry, BenefitsInformation } from '../../src/contract/check-response.ts';
import { eb } from './eb.ts';

export const PLAN = eb('EB*1*IND*30*PR*Test Plan');

export type PlanStatus = 'active' | 'inactive' | 'unknown';
const PLAN_ACTIVE = { active: true, inactive: false, unknown: undefined } as const;

export function interpret(
  rows: BenefitsInformation[],
  plan: PlanStatus = 'active',
  requested: string[] = [],
) {
  return interpretBenefits({
    benefitsInformation: rows,
    planActive: PLAN_ACTIVE[plan],
    requestedServiceTypeCodes: requested,
  });
}

export function entryOf(rows: BenefitsInformation[], serviceType: BenefitEntry['serviceType']) {
  const entry = interpret(rows).benefits.find((b) => b.serviceType === serviceType);
  assert.ok(entry, `no entry for ${serviceType}`);
  return entry;
}

export const criteria = (e: BenefitEntry) => e.confidence?.criteria ?? [];
export const hasCriterion = (e: BenefitEntry, start: string) => criteria(e).some((c) => c.startsWith(start));
