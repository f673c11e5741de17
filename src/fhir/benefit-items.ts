/**
 * The check's benefit entries as CoverageEligibilityResponse items: one item per product service type and
 * network for the individual, and one more for the family when the payer gave family amounts (the unit is
 * an item's, not a benefit's). Amounts are in US dollars; a coinsurance fraction is a percentage.
 */
import type {
  CodeableConcept,
  CoverageEligibilityResponseInsuranceItem,
  CoverageEligibilityResponseInsuranceItemBenefit,
  Money,
} from '@medplum/fhirtypes';
import type { BenefitEntry, BenefitsInformation, ProductServiceType } from '../contract/check-response.ts';
import { serviceTypeConcept } from './request-resource.ts';
import {
  BENEFIT_INFORMATION_SYSTEM,
  BENEFIT_NETWORK_SYSTEM,
  BENEFIT_TERM_SYSTEM,
  BENEFIT_TYPE_SYSTEM,
  BENEFIT_UNIT_SYSTEM,
  CONFIDENCE_EXTENSION,
} from './systems.ts';

/** The X12 service type code each product service type is asked and answered with (docs/benefit-rules.md). */
export const PRODUCT_SERVICE_TYPE_CODES: Record<ProductServiceType, string> = {
  'Preventive Nutrition': '98',
  'Medical Nutrition': '98',
  'Outpatient Physical Therapy': 'PT',
  'Mental Health': 'MH',
  'Occupational Therapy': 'AD',
  'Speech Therapy': 'AF',
  Chiropractic: '33',
};

type Benefit = CoverageEligibilityResponseInsuranceItemBenefit;

/** A benefit type: the HL7 benefit-type code where there is one, and the X12 EB01 code beside it. */
function benefitType(hl7: string | undefined, eb01: string, text: string): CodeableConcept {
  return {
    coding: [
      ...(hl7 ? [{ system: BENEFIT_TYPE_SYSTEM, code: hl7 }] : []),
      { system: BENEFIT_INFORMATION_SYSTEM, code: eb01 },
    ],
    text,
  };
}

const money = (value: number): Money => ({ value, currency: 'USD' });
const cents = (n: number) => Math.round(n * 100) / 100;

/** An amount with its remainder: `usedMoney` is what has been used of it (allowed − remaining). */
function amount(
  type: CodeableConcept,
  allowed: number | null | undefined,
  remaining: number | null | undefined,
): Benefit[] {
  if (allowed == null) return [];
  const used =
    remaining != null && remaining <= allowed ? { usedMoney: money(cents(allowed - remaining)) } : {};
  return [{ type, allowedMoney: money(allowed), ...used }];
}

const DEDUCTIBLE = benefitType('deductible', 'C', 'Deductible');
const OUT_OF_POCKET = benefitType(undefined, 'G', 'Out-of-pocket maximum');

function individualBenefits(entry: BenefitEntry): Benefit[] {
  const benefits: Benefit[] = [];
  if (entry.copay != null)
    benefits.push({ type: benefitType('copay', 'B', 'Copay'), allowedMoney: money(entry.copay) });
  if (entry.coinsurance != null) {
    const percent = Math.round(entry.coinsurance * 10000) / 100;
    benefits.push({
      type: benefitType('copay-percent', 'A', 'Coinsurance (percent)'),
      ...(Number.isInteger(percent) ? { allowedUnsignedInt: percent } : { allowedString: `${percent}%` }),
    });
  }
  benefits.push(...amount(DEDUCTIBLE, entry.deductible, entry.deductibleRemaining));
  benefits.push(...amount(OUT_OF_POCKET, entry.outOfPocketMax, entry.outOfPocketRemaining));
  if (entry.visitLimit != null) {
    benefits.push({
      type: benefitType('visit', 'F', 'Visits'),
      allowedUnsignedInt: entry.visitLimit,
      ...(entry.visitsUsed != null ? { usedUnsignedInt: entry.visitsUsed } : {}),
    });
  }
  return benefits;
}

function familyBenefits(entry: BenefitEntry): Benefit[] {
  return [
    ...amount(DEDUCTIBLE, entry.familyDeductible, entry.familyDeductibleRemaining),
    ...amount(OUT_OF_POCKET, entry.familyOutOfPocketMax, entry.familyOutOfPocketRemaining),
  ];
}

const coded = (system: string, code: string): CodeableConcept => ({ coding: [{ system, code }] });

/**
 * The benefit period of the plan's amounts, from the time qualifier (EB06) of its plan-level deductible or
 * out-of-pocket rows: a year (service, calendar or contract year) is `annual`, a lifetime `lifetime`.
 */
export function planTerm(rows: readonly BenefitsInformation[]): string | undefined {
  for (const row of rows) {
    if (row.code !== 'C' && row.code !== 'G') continue;
    if (row.timeQualifierCode && ['21', '22', '23', '25'].includes(row.timeQualifierCode)) return 'annual';
    if (row.timeQualifierCode === '32') return 'lifetime';
  }
  return undefined;
}

function itemOf(
  entry: BenefitEntry,
  unit: 'individual' | 'family',
  benefit: Benefit[],
  term: string | undefined,
) {
  const item: CoverageEligibilityResponseInsuranceItem = {
    category: serviceTypeConcept(PRODUCT_SERVICE_TYPE_CODES[entry.serviceType], entry.serviceType),
    name: entry.serviceType,
  };
  if (entry.inNetwork != null) item.network = coded(BENEFIT_NETWORK_SYSTEM, entry.inNetwork ? 'in' : 'out');
  item.unit = coded(BENEFIT_UNIT_SYSTEM, unit);
  if (term && benefit.length) item.term = coded(BENEFIT_TERM_SYSTEM, term);
  if (entry.coverageStatus === 'Not Covered') item.excluded = true;
  if (benefit.length) item.benefit = benefit;
  if (unit === 'individual' && entry.authorizationRequired != null) {
    item.authorizationRequired = entry.authorizationRequired;
  }
  const score = entry.confidence?.score;
  if (typeof score === 'number') item.extension = [{ url: CONFIDENCE_EXTENSION, valueDecimal: score }];
  return item;
}

/** The items of the entries the payer spoke to (`Not Found` entries have none). */
export function benefitItems(entries: readonly BenefitEntry[], term: string | undefined) {
  const items: CoverageEligibilityResponseInsuranceItem[] = [];
  for (const entry of entries) {
    if (entry.coverageStatus === 'Not Found') continue;
    items.push(
      itemOf(
        entry,
        'individual',
        entry.coverageStatus === 'Not Covered' ? [] : individualBenefits(entry),
        term,
      ),
    );
    const family = entry.coverageStatus === 'Not Covered' ? [] : familyBenefits(entry);
    if (family.length) items.push(itemOf(entry, 'family', family, term));
  }
  return items;
}
