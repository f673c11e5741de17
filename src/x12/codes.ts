/**
 * X12 271 code tables, one per element, matching docs/x12-codes.md (test/x12/codes.test.ts checks every
 * code and meaning against it). Lookups never throw on unknown codes: real files send them.
 */
import { SERVICE_TYPE_CODES } from './service-type-codes.ts';

export {
  ENTITY_IDENTIFIER_CODES,
  INS02_RELATIONSHIP_CODES,
  PER_COMMUNICATION_MODES,
  PROCEDURE_QUALIFIERS,
  REF_KEYS,
} from './party-codes.ts';
export {
  AAA03_BY_LOOP,
  AAA03_REJECT_REASONS,
  AAA04_FOLLOW_UP_ACTIONS,
  SPEC_AAA_ERRORS,
} from './reject-codes.ts';
export { SERVICE_TYPE_CODES } from './service-type-codes.ts';

type Table = Readonly<Record<string, string>>;

/** EB01 eligibility or benefit information (element 1390): all 35 codes. */
export const EB01_BENEFIT_CODES: Table = {
  '1': 'Active Coverage',
  '2': 'Active - Full Risk Capitation',
  '3': 'Active - Services Capitated',
  '4': 'Active - Services Capitated to Primary Care Physician',
  '5': 'Active - Pending Investigation',
  '6': 'Inactive',
  '7': 'Inactive - Pending Eligibility Update',
  '8': 'Inactive - Pending Investigation',
  A: 'Co-Insurance',
  B: 'Co-Payment',
  C: 'Deductible',
  CB: 'Coverage Basis',
  D: 'Benefit Description',
  E: 'Exclusions',
  F: 'Limitations',
  G: 'Out of Pocket (Stop Loss)',
  H: 'Unlimited',
  I: 'Non-Covered',
  J: 'Cost Containment',
  K: 'Reserve',
  L: 'Primary Care Provider',
  M: 'Pre-existing Condition',
  MC: 'Managed Care Coordinator',
  N: 'Services Restricted to Following Provider',
  O: 'Not Deemed a Medical Necessity',
  P: 'Benefit Disclaimer',
  Q: 'Second Surgical Opinion Required',
  R: 'Other or Additional Payer',
  S: 'Prior Year(s) History',
  T: 'Card(s) Reported Lost/Stolen',
  U: 'Contact Following Entity for Eligibility or Benefit Information',
  V: 'Cannot Process',
  W: 'Other Source of Data',
  X: 'Health Care Facility',
  Y: 'Spend Down',
};

/** EB02 coverage level (element 1207): the nine the 271 allows, then the rest of the element's list. */
export const EB02_COVERAGE_LEVELS: Table = {
  CHD: 'Children Only',
  DEP: 'Dependents Only',
  ECH: 'Employee and Children',
  EMP: 'Employee Only',
  ESP: 'Employee and Spouse',
  FAM: 'Family',
  IND: 'Individual',
  SPC: 'Spouse and Children',
  SPO: 'Spouse Only',
  E1D: 'Employee and One Dependent',
  E2D: 'Employee and Two Dependents',
  E3D: 'Employee and Three Dependents',
  E5D: 'Employee and One or More Dependents',
  E6D: 'Employee and Two or More Dependents',
  E7D: 'Employee and Three or More Dependents',
  E8D: 'Employee and Four or More Dependents',
  E9D: 'Employee and Five or More Dependents',
  TWO: 'Two Party',
};

/** EB04 insurance type code (element 1336), as allowed in 005010X279A1. */
export const EB04_INSURANCE_TYPES: Table = {
  '12': 'Medicare Secondary Working Aged Beneficiary or Spouse with Employer Group Health Plan',
  '13': 'Medicare Secondary End-Stage Renal Disease Beneficiary in the Mandated Coordination Period',
  '14': 'Medicare Secondary, No-fault Insurance including Auto is Primary',
  '15': "Medicare Secondary Worker's Compensation",
  '16': 'Medicare Secondary Public Health Service (PHS) or Other Federal Agency',
  '41': 'Medicare Secondary Black Lung',
  '42': "Medicare Secondary Veteran's Administration",
  '43': 'Medicare Secondary Disabled Beneficiary Under Age 65 with Large Group Health Plan (LGHP)',
  '47': 'Medicare Secondary, Other Liability Insurance is Primary',
  AP: 'Auto Insurance Policy',
  C1: 'Commercial',
  CO: 'Consolidated Omnibus Budget Reconciliation Act (COBRA)',
  CP: 'Medicare Conditionally Primary',
  D: 'Disability',
  DB: 'Disability Benefits',
  EP: 'Exclusive Provider Organization',
  FF: 'Family or Friends',
  GP: 'Group Policy',
  HM: 'Health Maintenance Organization (HMO)',
  HN: 'Health Maintenance Organization (HMO) - Medicare Risk',
  HS: 'Special Low Income Medicare Beneficiary',
  IN: 'Indemnity',
  IP: 'Individual Policy',
  LC: 'Long Term Care',
  LD: 'Long Term Policy',
  LI: 'Life Insurance',
  LT: 'Litigation',
  MA: 'Medicare Part A',
  MB: 'Medicare Part B',
  MC: 'Medicaid',
  MH: 'Medigap Part A',
  MI: 'Medigap Part B',
  MP: 'Medicare Primary',
  OT: 'Other',
  PE: 'Property Insurance - Personal',
  PL: 'Personal',
  PP: 'Personal Payment (Cash - No Insurance)',
  PR: 'Preferred Provider Organization (PPO)',
  PS: 'Point of Service (POS)',
  QM: 'Qualified Medicare Beneficiary',
  RP: 'Property Insurance - Real',
  SP: 'Supplemental Policy',
  TF: 'Tax Equity Fiscal Responsibility Act (TEFRA)',
  WC: 'Workers Compensation',
  WU: 'Wrap Up Policy',
};

/** EB06 and HSD05 time period qualifier (element 615). HSD05 allows all but 13 and 36. */
export const TIME_PERIOD_QUALIFIERS: Table = {
  '6': 'Hour',
  '7': 'Day',
  '13': '24 Hours',
  '21': 'Years',
  '22': 'Service Year',
  '23': 'Calendar Year',
  '24': 'Year to Date',
  '25': 'Contract',
  '26': 'Episode',
  '27': 'Visit',
  '28': 'Outlier',
  '29': 'Remaining',
  '30': 'Exceeded',
  '31': 'Not Exceeded',
  '32': 'Lifetime',
  '33': 'Lifetime Remaining',
  '34': 'Month',
  '35': 'Week',
  '36': 'Admission',
};

/** EB09 quantity qualifier (element 673): the X279A1 list plus VS and YY, which real payers send. */
export const EB09_QUANTITY_QUALIFIERS: Table = {
  '8H': 'Minimum',
  '99': 'Quantity Used',
  CA: 'Covered - Actual',
  CE: 'Covered - Estimated',
  D3: 'Number of Co-insurance Days',
  DB: 'Deductible Blood Units',
  DY: 'Days',
  HS: 'Hours',
  LA: 'Lifetime Reserve - Actual',
  LE: 'Lifetime Reserve - Estimated',
  M2: 'Maximum',
  MN: 'Month',
  P6: 'Number of Services or Procedures',
  QA: 'Quantity Approved',
  S7: 'Age, High Value',
  S8: 'Age, Low Value',
  VS: 'Visits',
  YY: 'Years',
};

/** EB11 authorization or certification indicator. */
export const EB11_AUTHORIZATION_INDICATORS: Table = { Y: 'Yes', N: 'No', U: 'Unknown' };

/** EB12 in plan network indicator (element 1073). */
export const EB12_NETWORK_INDICATORS: Table = {
  Y: 'In Network',
  N: 'Out of Network',
  U: 'Unknown',
  W: 'Not Applicable',
};

/** HSD01 quantity qualifier. */
export const HSD01_QUANTITY_QUALIFIERS: Table = {
  DY: 'Days',
  FL: 'Units',
  HS: 'Hours',
  MN: 'Month',
  VS: 'Visits',
};

/** HSD03 unit or basis for measurement. */
export const HSD03_UNITS: Table = { DA: 'Days', MO: 'Months', VS: 'Visit', WK: 'Week', YR: 'Years' };

/** HSD07 delivery frequency (element 678). */
export const HSD07_DELIVERY_FREQUENCIES: Table = {
  '1': '1st Week of the Month',
  '2': '2nd Week of the Month',
  '3': '3rd Week of the Month',
  '4': '4th Week of the Month',
  '5': '5th Week of the Month',
  '6': '1st & 3rd Weeks of the Month',
  '7': '2nd & 4th Weeks of the Month',
  '8': 'First Working Day of Period',
  '9': 'Last Working Day of Period',
  A: 'Monday through Friday',
  B: 'Monday through Saturday',
  C: 'Monday through Sunday',
  D: 'Monday',
  E: 'Tuesday',
  F: 'Wednesday',
  G: 'Thursday',
  H: 'Friday',
  J: 'Saturday',
  K: 'Sunday',
  L: 'Monday through Thursday',
  M: 'Immediately',
  N: 'As Directed',
  O: 'Daily Monday through Friday',
  P: '1/2 Monday & 1/2 Thursday',
  Q: '1/2 Tuesday & 1/2 Thursday',
  R: '1/2 Wednesday & 1/2 Friday',
  S: 'Once Anytime Monday through Friday',
  T: '1/2 Tuesday & 1/2 Friday',
  U: '1/2 Monday & 1/2 Wednesday',
  V: '1/3 Monday, 1/3 Wednesday, 1/3 Friday',
  W: 'Whenever Necessary',
  X: '1/2 by Wednesday, Balance by Friday',
  Y: 'None',
  SG: 'Tuesday through Friday',
  SL: 'Monday, Tuesday and Thursday',
  SP: 'Monday, Tuesday and Friday',
  SX: 'Wednesday and Thursday',
  SY: 'Monday, Wednesday and Thursday',
  SZ: 'Tuesday, Thursday and Friday',
};

/** HSD08 delivery pattern time (element 679). */
export const HSD08_DELIVERY_TIMES: Table = {
  A: '1st Shift',
  B: '2nd Shift',
  C: '3rd Shift',
  D: 'A.M.',
  E: 'P.M.',
  F: 'As Directed',
  G: 'Any Shift',
  Y: 'None',
};

export function isKnownServiceTypeCode(code: string): boolean {
  return Object.hasOwn(SERVICE_TYPE_CODES, code);
}

/** The name of service type code `code`, or undefined when it is not one of the 187. */
export function serviceTypeName(code: string): string | undefined {
  return codeName(SERVICE_TYPE_CODES, code);
}

/** The name of `code` in `table`, or undefined; never throws on unknown codes (real files send them). */
export function codeName(table: Table, code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
}
