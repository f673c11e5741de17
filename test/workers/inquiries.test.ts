/** The inquiries a check sends, per the payer's profile (docs/payers.md "Payer profiles: how each payer is asked"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRIMARY_CODE } from '../../src/benefits/service-types.ts';
import { PRODUCT_SERVICE_TYPES } from '../../src/contract/check-response.ts';
import {
  askedCodes,
  inquiryCodes,
  PRODUCT_INQUIRY_CODES,
  planInquiries,
} from '../../src/workers/inquiries.ts';

test('a check without codes asks 30 and the first code of every product service type; the sandbox 30 alone', () => {
  assert.deepEqual(PRODUCT_INQUIRY_CODES, ['30', '98', 'PT', 'MH', 'AD', 'AF', '33']);
  for (const product of PRODUCT_SERVICE_TYPES)
    assert.ok(PRODUCT_INQUIRY_CODES.includes(PRIMARY_CODE[product]));
  assert.deepEqual(inquiryCodes(undefined), PRODUCT_INQUIRY_CODES);
  assert.deepEqual(inquiryCodes([], 'products'), PRODUCT_INQUIRY_CODES);
  assert.deepEqual(inquiryCodes(undefined, 'plan'), ['30']);
  // The request's codes win over either default, exactly as given.
  assert.deepEqual(inquiryCodes(['MH', 'PT', 'MH'], 'plan'), ['MH', 'PT', 'MH']);
  assert.deepEqual(inquiryCodes(['MH']), ['MH']);
});

test('repeat (the default) is one 270 with the codes as given; loops one 270 with one EQ per code', () => {
  assert.deepEqual(planInquiries(['98', 'PT', 'PT']), [
    { serviceTypeCodes: ['98', 'PT', 'PT'], eqForm: 'repeat' },
  ]);
  assert.deepEqual(planInquiries(['98', 'PT'], 'repeat'), [
    { serviceTypeCodes: ['98', 'PT'], eqForm: 'repeat' },
  ]);
  assert.deepEqual(planInquiries(['98', 'PT', 'PT'], 'loops'), [
    { serviceTypeCodes: ['98', 'PT'], eqForm: 'loops' },
  ]);
});

test('separate is one 270 per distinct code, in order; generic-only one 270 asking 30', () => {
  assert.deepEqual(planInquiries(['30', 'PT', 'MH', 'PT'], 'separate'), [
    { serviceTypeCodes: ['30'], eqForm: 'repeat' },
    { serviceTypeCodes: ['PT'], eqForm: 'repeat' },
    { serviceTypeCodes: ['MH'], eqForm: 'repeat' },
  ]);
  assert.equal(planInquiries(PRODUCT_INQUIRY_CODES, 'separate').length, 7);
  assert.deepEqual(planInquiries(['PT', 'MH'], 'generic-only'), [
    { serviceTypeCodes: ['30'], eqForm: 'repeat' },
  ]);
});

test('the interpreter is told every code asked: the request codes first, then what the plan added', () => {
  assert.deepEqual(askedCodes(['PT'], planInquiries(['PT'], 'generic-only')), ['PT', '30']);
  assert.deepEqual(askedCodes(undefined, planInquiries(inquiryCodes(undefined), 'separate')), [
    ...PRODUCT_INQUIRY_CODES,
  ]);
  // The sandbox without codes: 30 alone, which is no product's code, so no entry's criteria change.
  assert.deepEqual(askedCodes(undefined, planInquiries(inquiryCodes(undefined, 'plan'))), ['30']);
});
