/**
 * Where a check's product service types came from (src/benefits/source.ts), read back from results the
 * interpreter built: the payer's service-type rows, the plan-level (30) fallback, or nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PLAN_MATCH, tierOfCriterion } from '../../src/benefits/service-types.ts';
import { benefitSource, entrySource } from '../../src/benefits/source.ts';
import { eb } from './eb.ts';
import { interpret } from './helpers.ts';

const completed = (
  rows: Parameters<typeof interpret>[0],
  plan: Parameters<typeof interpret>[1] = 'active',
) => ({
  status: 'COMPLETED',
  planActive: plan === 'active' ? true : plan === 'inactive' ? false : undefined,
  benefits: interpret(rows, plan).benefits,
});

// A row for every product's own service type code.
const EVERY_PRODUCT = [
  eb('EB*B*IND*PT*PR*Plan*27*20'),
  eb('EB*B*IND*MH*PR*Plan*27*25'),
  eb('EB*B*IND*AD*PR*Plan*27*20'),
  eb('EB*B*IND*AF*PR*Plan*27*20'),
  eb('EB*B*IND*33*PR*Plan*27*15'),
  eb('EB*B*IND*98*PR*Plan*27*30'),
];

test('every product from rows for its service type: payer-rows', () => {
  const result = completed(EVERY_PRODUCT);
  assert.ok(result.benefits.every((e) => entrySource(e) !== 'plan-fallback'));
  assert.equal(benefitSource(result), 'payer-rows');
});

test('one product derived from the plan-level 30 rows: plan-fallback', () => {
  const result = completed([eb('EB*B*IND*PT*PR*Plan*27*20'), eb('EB*C*IND*30*PR*Plan*23*500')]);
  const sources = result.benefits.map(entrySource);
  assert.ok(sources.includes('payer-rows'), 'PT from its own row');
  assert.ok(sources.includes('plan-fallback'), 'the others from the plan-level deductible');
  assert.equal(benefitSource(result), 'plan-fallback');
});

test('no usable rows at all, or products from the plan status only: none', () => {
  assert.equal(benefitSource(completed([])), 'none');
  assert.equal(benefitSource({ status: 'COMPLETED', benefits: [] }), 'none');
});

test('a failed check, or an inactive plan, is not classified', () => {
  assert.equal(benefitSource({ status: 'FAILED' }), undefined);
  assert.equal(benefitSource(completed([eb('EB*6*IND*30')], 'inactive')), undefined);
});

test('every match criterion reads back as its tier; other texts as none', () => {
  assert.equal(tierOfCriterion(PLAN_MATCH.criterion), 'plan');
  assert.equal(tierOfCriterion('service type matched directly (PT)'), 'direct');
  assert.equal(tierOfCriterion('matched through related service type AE Physical Medicine'), 'related');
  assert.equal(tierOfCriterion('nutrition benefit identified from MSG text (98)'), 'direct');
  assert.equal(tierOfCriterion('no cost sharing returned'), undefined);
});
