/**
 * The interpreter never throws on odd input and always answers in the spec's shape: entries validate
 * against the BenefitEntry schema, scores stay within 0–1, and the result does not depend on anything but
 * the input (pure).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import {
  BenefitEntry,
  type BenefitsInformation,
  CheckConfidence,
  PRODUCT_SERVICE_TYPES,
} from '../../src/contract/check-response.ts';
import { eb } from './eb.ts';
import { SBX1000001, SBX1000002, SBX1000004, SBX1000005 } from './sandbox-members.ts';

const entrySchema = Compile(BenefitEntry);
const checkConfidenceSchema = Compile(CheckConfidence);

const ODD_ROWS: BenefitsInformation[] = [
  {},
  { code: '' },
  { code: 'B', serviceTypeCodes: ['', ' pt '], benefitAmount: 'abc', inPlanNetworkIndicatorCode: 'y' },
  { code: 'A', serviceTypeCodes: ['MH'], benefitPercent: '250' },
  { code: 'A', serviceTypeCodes: ['MH'], benefitPercent: '-1' },
  { code: 'F', serviceTypeCodes: ['33'], quantityQualifierCode: 'VS', benefitQuantity: 'x' },
  { code: 'F', serviceTypeCodes: ['33'], benefitsServiceDelivery: [{}, { quantityQualifierCode: 'VS' }] },
  { code: 'C', coverageLevelCode: 'XYZ', serviceTypeCodes: ['30'], benefitAmount: '100' },
  { code: '1', additionalInformation: [{}, { description: '' }] },
  eb('EB*I'),
];

test('odd rows do not throw and every entry matches the BenefitEntry schema', () => {
  for (const planActive of [true, false, undefined]) {
    const result = interpretBenefits({
      benefitsInformation: ODD_ROWS,
      planActive,
      requestedServiceTypeCodes: ['PT'],
    });
    for (const entry of result.benefits) assert.ok(entrySchema.Check(entry), JSON.stringify(entry));
    assert.ok(checkConfidenceSchema.Check(result.confidence));
  }
});

test('sandbox results match the schema, one entry per product', () => {
  for (const rows of [SBX1000001, SBX1000002, SBX1000004, SBX1000005]) {
    const result = interpretBenefits({
      benefitsInformation: rows,
      planActive: true,
      requestedServiceTypeCodes: [],
    });
    assert.deepEqual(
      result.benefits.map((b) => b.serviceType),
      [...PRODUCT_SERVICE_TYPES],
    );
    for (const entry of result.benefits) assert.ok(entrySchema.Check(entry), JSON.stringify(entry));
    for (const w of result.warnings) assert.match(w.code, /^[A-Z_]+$/);
  }
});

test('pure: the same input gives the same output, and the input is not modified', () => {
  const input = structuredClone(SBX1000001);
  const first = interpretBenefits({
    benefitsInformation: input,
    planActive: true,
    requestedServiceTypeCodes: [],
  });
  const second = interpretBenefits({
    benefitsInformation: input,
    planActive: true,
    requestedServiceTypeCodes: [],
  });
  assert.deepEqual(first, second);
  assert.deepEqual(input, SBX1000001);
});

test('row order does not change the numbers of the sandbox tables', () => {
  const forward = interpretBenefits({
    benefitsInformation: SBX1000001,
    planActive: true,
    requestedServiceTypeCodes: [],
  });
  const reversed = interpretBenefits({
    benefitsInformation: [...SBX1000001].reverse(),
    planActive: true,
    requestedServiceTypeCodes: [],
  });
  const numbers = (b: (typeof forward.benefits)[number]) => ({ ...b, confidence: undefined });
  assert.deepEqual(reversed.benefits.map(numbers), forward.benefits.map(numbers));
});
