/** The seven service types the product reports a `BenefitEntry` for (docs/contract.md "BenefitEntry"). */
export const PRODUCT_SERVICE_TYPES = [
  'Preventive Nutrition',
  'Medical Nutrition',
  'Outpatient Physical Therapy',
  'Mental Health',
  'Occupational Therapy',
  'Speech Therapy',
  'Chiropractic',
] as const;
export type ProductServiceType = (typeof PRODUCT_SERVICE_TYPES)[number];
