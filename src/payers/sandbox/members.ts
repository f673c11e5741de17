/**
 * The sandbox payer's member table: every member of docs/sandbox.md with its plan as data.
 * The 271 is generated from these records (respond271.ts), so every number the service reports for a
 * sandbox member comes out of real X12 through the parser and the interpreter.
 */

export type Gender = 'M' | 'F' | 'U';

export interface MemberAddress {
  line1: string;
  city: string;
  state: string;
  postalCode: string;
}

/** A plan-level amount pair (EB07 with EB06 23 calendar year / 29 remaining), individual and family. */
export interface PlanAmounts {
  individual: number;
  individualRemaining: number;
  /** Absent: the plan has no family amount (Medicare); no FAM rows are sent. */
  family?: number;
  familyRemaining?: number;
}

/**
 * Another payer the member is covered by, sent as an EB*R row (docs/sandbox-271.md): REF with the member's
 * id there and the group, DTP*290 (coordination of benefits date), and a 2120C naming the payer.
 */
export interface OtherPayer {
  /** NM101 of the 2120C: PRP primary payer, SEP secondary, PR payer (order not stated). */
  entity: 'PRP' | 'SEP' | 'PR';
  payerName: string;
  payerId: string;
  /** EB04: C1 commercial, 12 Medicare Secondary Working Aged (employer group health plan primary), … */
  insuranceType: string;
  memberId: string;
  /** REF01 of the member id: 1W member identification number, IG insurance policy number (HETS). */
  memberIdQualifier: '1W' | 'IG';
  groupNumber?: string;
  coordinationDate: string;
}

/** What the plan pays for one service type code (EB03). */
export interface ServiceBenefit {
  serviceTypeCode: string;
  /** MSG text after every row: it tells the two nutrition products apart, as both use STC 98. */
  message?: string;
  /** false: the service is a non-covered benefit (EB*I). */
  covered: boolean;
  copay?: number;
  /** Fraction 0..1. */
  coinsurance?: number;
  /** true: a service-level EB*C with the plan's deductible; false: one with 0; undefined: no row. */
  deductibleApplies?: boolean;
  visitLimit?: number;
  visitsUsed?: number;
  authorizationRequired?: boolean;
  /** Out-of-network coinsurance (EB12 N), sent next to the in-network rows. */
  outOfNetworkCoinsurance?: number;
}

export interface Plan {
  active: boolean;
  /** EB05 of the plan status row. */
  name?: string;
  /** EB04: PR preferred provider organization, HM health maintenance organization, MB Medicare Part B. */
  insuranceType?: 'PR' | 'HM' | 'MB';
  /** REF*6P of the subscriber; absent for Medicare, which has no group. */
  groupNumber?: string;
  eligibilityDate: string;
  period: { start: string; end: string };
  /** EB03 of each plan status row (EB*1, or EB*6 when inactive); usually one row for the plan as a whole. */
  statusRows: string[][];
  deductible?: PlanAmounts;
  outOfPocket?: PlanAmounts;
  services: ServiceBenefit[];
  primaryCareProvider?: { lastName: string; firstName: string; npi: string };
  /** Other coverage (coordination of benefits), one EB*R row each. */
  otherCoverage?: OtherPayer[];
}

export interface Dependent {
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  gender: Gender;
  /** An AAA reject reason the payer reports for this dependent (loop 2100D). */
  rejection?: string;
}

/**
 * `normal` answers after the base latency; `slow` after 20 times it; `flaky` answers AAA 42 to the first two
 * calls for one trace number; `silent` never answers; `reject` answers an AAA in loop 2100C.
 */
export type Scenario =
  | { kind: 'normal' }
  | { kind: 'slow' }
  | { kind: 'flaky' }
  | { kind: 'silent' }
  | { kind: 'reject'; code: string };

export interface Member {
  memberId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  gender: Gender;
  address: MemberAddress;
  plan: Plan;
  scenario: Scenario;
  dependents: Dependent[];
  /**
   * The plan from a date of service on (YYYYMMDD, inclusive): the payer answers for the date asked about
   * (the 270's DTP*291, else the day it answers), so a member's answer can change between two checks.
   */
  planFrom?: { date: string; plan: Plan };
}

const YEAR_2026 = { eligibilityDate: '20260101', period: { start: '20260101', end: '20261231' } };
const PREVENTIVE_NUTRITION = 'PREVENTIVE NUTRITION COUNSELING';
const MEDICAL_NUTRITION = 'MEDICAL NUTRITION THERAPY';

/** Table A: SBX1000001 (and the members that answer like it). Out-of-network coinsurance 0.4 throughout. */
export const PPO_GOLD: Plan = {
  active: true,
  name: 'Sandbox PPO Gold',
  insuranceType: 'PR',
  groupNumber: 'G-12345',
  ...YEAR_2026,
  statusRows: [['30']],
  deductible: { individual: 1500, individualRemaining: 500, family: 3000, familyRemaining: 2000 },
  outOfPocket: { individual: 5000, individualRemaining: 3200, family: 10000, familyRemaining: 8000 },
  // biome-ignore format: one service per line, as in the spec's Table A
  services: [
    { serviceTypeCode: '98', message: PREVENTIVE_NUTRITION, covered: true, copay: 0, deductibleApplies: false, visitLimit: 6, visitsUsed: 1, authorizationRequired: false },
    { serviceTypeCode: '98', message: MEDICAL_NUTRITION, covered: true, copay: 20, deductibleApplies: false, visitLimit: 12, visitsUsed: 0, authorizationRequired: false },
    { serviceTypeCode: 'PT', covered: true, copay: 30, deductibleApplies: true, visitLimit: 20, visitsUsed: 4, authorizationRequired: false },
    { serviceTypeCode: 'MH', covered: true, copay: 25, deductibleApplies: false, authorizationRequired: true },
    { serviceTypeCode: 'AD', covered: true, coinsurance: 0.2, deductibleApplies: true, visitLimit: 20, visitsUsed: 2, authorizationRequired: false },
    { serviceTypeCode: 'AF', covered: true, coinsurance: 0.2, deductibleApplies: true, visitLimit: 20, visitsUsed: 0, authorizationRequired: true },
    { serviceTypeCode: '33', covered: true, copay: 15, deductibleApplies: false, visitLimit: 12, visitsUsed: 5, authorizationRequired: false },
  ].map((s) => ({ ...s, outOfNetworkCoinsurance: 0.4 })),
};

/** Table B: SBX1000002 and SBX1000010. An HMO: no deductible, in network only, a primary care provider. */
export const HMO_SILVER: Plan = {
  active: true,
  name: 'Sandbox HMO Silver',
  insuranceType: 'HM',
  groupNumber: 'G-67890',
  ...YEAR_2026,
  statusRows: [['30']],
  outOfPocket: { individual: 3000, individualRemaining: 2500, family: 6000, familyRemaining: 5500 },
  // biome-ignore format: one service per line, as in the spec's Table B
  services: [
    { serviceTypeCode: '98', message: PREVENTIVE_NUTRITION, covered: true, copay: 0, deductibleApplies: false, authorizationRequired: false },
    { serviceTypeCode: '98', message: MEDICAL_NUTRITION, covered: true, copay: 10, deductibleApplies: false, authorizationRequired: false },
    { serviceTypeCode: 'PT', covered: true, copay: 20, deductibleApplies: false, authorizationRequired: true },
    { serviceTypeCode: 'MH', covered: true, copay: 20, deductibleApplies: false, authorizationRequired: true },
    { serviceTypeCode: 'AD', covered: true, copay: 20, deductibleApplies: false, authorizationRequired: true },
    { serviceTypeCode: 'AF', covered: true, copay: 20, deductibleApplies: false, authorizationRequired: true },
    { serviceTypeCode: '33', covered: false },
  ],
  primaryCareProvider: { lastName: 'CARTER', firstName: 'OLIVIA', npi: '1245319599' },
};

/** SBX1000011 from 20261101: Table A's plan, ended on 20261031; the 271 says only EB*6. */
const PPO_GOLD_ENDED: Plan = {
  active: false,
  groupNumber: PPO_GOLD.groupNumber,
  eligibilityDate: '20260101',
  period: { start: '20260101', end: '20261031' },
  statusRows: [['30']],
  services: [],
};

/** SBX1000012 from 20261101: Table A with the individual deductible met and physical therapy's 20 visits used. */
const PPO_GOLD_MET: Plan = {
  ...PPO_GOLD,
  deductible: { ...PPO_GOLD.deductible!, individualRemaining: 0 },
  services: PPO_GOLD.services.map((s) =>
    s.serviceTypeCode === 'PT' ? { ...s, visitsUsed: s.visitLimit } : s,
  ),
};

/** SBX1000003: coverage ended last year; the 271 says only EB*6. */
const INACTIVE: Plan = {
  active: false,
  groupNumber: 'G-24680',
  eligibilityDate: '20250101',
  period: { start: '20250101', end: '20251231' },
  statusRows: [['30']],
  services: [],
};

/** SBX1000004: only plan-level (30) rows; the interpreter must derive every product from them. */
const PLAN_LEVEL_ONLY: Plan = {
  active: true,
  name: 'Sandbox PPO Silver',
  insuranceType: 'PR',
  groupNumber: 'G-11223',
  ...YEAR_2026,
  statusRows: [['30']],
  deductible: { individual: 2000, individualRemaining: 1200, family: 4000, familyRemaining: 3000 },
  outOfPocket: { individual: 6000, individualRemaining: 4500, family: 12000, familyRemaining: 9000 },
  services: [
    { serviceTypeCode: '30', covered: true, copay: 35, coinsurance: 0.2, authorizationRequired: false },
  ],
};

/** SBX1000005: one EB*1 naming every product's code in EB03 repetitions, and no amounts at all. */
const NO_AMOUNTS: Plan = {
  active: true,
  name: 'Sandbox Basic',
  insuranceType: 'PR',
  groupNumber: 'G-33445',
  ...YEAR_2026,
  statusRows: [['30', '98', 'PT', 'MH', 'AD', 'AF', '33']],
  services: [],
};

/** SBX1000006: pharmacy and vision only, nothing usable for any product. */
const PHARMACY_AND_VISION: Plan = {
  active: true,
  groupNumber: 'G-55667',
  ...YEAR_2026,
  statusRows: [['88'], ['AL']],
  services: [],
};

/** SBX1000013: Table A's plan, but a commercial plan elsewhere pays first (2120C NM1*PRP): this plan is secondary. */
const PPO_GOLD_SECONDARY: Plan = {
  ...PPO_GOLD,
  otherCoverage: [
    {
      entity: 'PRP',
      payerName: 'NORTHWIND COMMERCIAL HEALTH',
      payerId: 'NWCH1',
      insuranceType: 'C1',
      memberId: 'NWC4455667',
      memberIdQualifier: '1W',
      groupNumber: 'NW-4410',
      coordinationDate: '20260101',
    },
  ],
};

/**
 * SBX1000014: Medicare Part B (20 % coinsurance after the Part B deductible, no out-of-pocket maximum, no
 * group), with a Medicare Secondary Payer row: she still works, and her employer's group health plan pays
 * first (EB04 12, 2120C NM1*PRP), as a HETS 271 says it.
 */
const MEDICARE_PART_B: Plan = {
  active: true,
  name: 'Sandbox Medicare Part B',
  insuranceType: 'MB',
  eligibilityDate: '20120301',
  period: YEAR_2026.period,
  statusRows: [['30']],
  deductible: { individual: 283, individualRemaining: 283 },
  // biome-ignore format: one service per line, as in docs/sandbox.md
  services: [
    { serviceTypeCode: '98', message: PREVENTIVE_NUTRITION, covered: true, copay: 0, deductibleApplies: false, authorizationRequired: false },
    { serviceTypeCode: '98', message: MEDICAL_NUTRITION, covered: true, copay: 0, deductibleApplies: false, authorizationRequired: false },
    { serviceTypeCode: 'PT', covered: true, coinsurance: 0.2, deductibleApplies: true, authorizationRequired: false },
    { serviceTypeCode: 'MH', covered: true, coinsurance: 0.2, deductibleApplies: true, authorizationRequired: false },
    { serviceTypeCode: 'AD', covered: true, coinsurance: 0.2, deductibleApplies: true, authorizationRequired: false },
    { serviceTypeCode: 'AF', covered: true, coinsurance: 0.2, deductibleApplies: true, authorizationRequired: false },
    { serviceTypeCode: '33', covered: true, coinsurance: 0.2, deductibleApplies: true, authorizationRequired: false },
  ],
  otherCoverage: [
    {
      entity: 'PRP',
      payerName: 'CONTOSO EMPLOYER GROUP HEALTH PLAN',
      payerId: 'CEGHP',
      insuranceType: '12',
      memberId: 'CEG7781203',
      memberIdQualifier: 'IG',
      coordinationDate: '20120301',
    },
  ],
};

function member(
  memberId: string,
  [firstName, lastName, dateOfBirth, gender]: [string, string, string, Gender],
  address: MemberAddress,
  plan: Plan,
  scenario: Scenario = { kind: 'normal' },
  dependents: Dependent[] = [],
  planFrom?: Member['planFrom'],
): Member {
  const found = { memberId, firstName, lastName, dateOfBirth, gender, address, plan, scenario, dependents };
  return planFrom ? { ...found, planFrom } : found;
}
const at = (line1: string, city: string, state: string, postalCode: string) => ({
  line1,
  city,
  state,
  postalCode,
});

// biome-ignore format: one member per line, as in the spec's member table
export const MEMBERS: readonly Member[] = [
  member('SBX1000001', ['JANE', 'DOE', '19800115', 'F'], at('100 MAIN ST', 'SPRINGFIELD', 'IL', '62701'), PPO_GOLD, undefined, [
    { firstName: 'JOHNNY', lastName: 'DOE', dateOfBirth: '20150302', gender: 'M' },
  ]),
  member('SBX1000002', ['JOHN', 'SMITH', '19750704', 'M'], at('200 OAK AVE', 'MADISON', 'WI', '53703'), HMO_SILVER),
  member('SBX1000003', ['MARIA', 'GARCIA', '19900210', 'F'], at('300 PINE RD', 'AUSTIN', 'TX', '78701'), INACTIVE),
  member('SBX1000004', ['ROBERT', 'JOHNSON', '19650830', 'M'], at('400 ELM ST', 'DENVER', 'CO', '80202'), PLAN_LEVEL_ONLY),
  member('SBX1000005', ['LINDA', 'WILLIAMS', '19881122', 'F'], at('500 MAPLE DR', 'PORTLAND', 'OR', '97201'), NO_AMOUNTS),
  member('SBX1000006', ['PAT', 'TAYLOR', '19770909', 'U'], at('600 CEDAR LN', 'RALEIGH', 'NC', '27601'), PHARMACY_AND_VISION),
  member('SBX1000007', ['DAVID', 'BROWN', '19700101', 'M'], at('700 BIRCH CT', 'COLUMBUS', 'OH', '43215'), PPO_GOLD, { kind: 'slow' }),
  member('SBX1000008', ['SUSAN', 'DAVIS', '19820505', 'F'], at('800 ASH BLVD', 'BOSTON', 'MA', '02108'), PPO_GOLD, { kind: 'flaky' }),
  member('SBX1000009', ['JAMES', 'MILLER', '19591212', 'M'], at('900 SPRUCE WAY', 'PHOENIX', 'AZ', '85004'), PPO_GOLD, { kind: 'silent' }),
  member('SBX1000010', ['EMMA', 'WILSON', '19850315', 'F'], at('1000 WILLOW ST', 'SEATTLE', 'WA', '98101'), HMO_SILVER, undefined, [
    { firstName: 'NOAH', lastName: 'WILSON', dateOfBirth: '20120101', gender: 'M', rejection: '73' },
    { firstName: 'OLIVIA', lastName: 'WILSON', dateOfBirth: '20140610', gender: 'F' },
  ]),
  member('SBX1000011', ['OLIVIA', 'CLARK', '19920614', 'F'], at('1100 POPLAR AVE', 'OMAHA', 'NE', '68102'), PPO_GOLD, undefined, [], { date: '20261101', plan: PPO_GOLD_ENDED }),
  member('SBX1000012', ['HENRY', 'LEWIS', '19680227', 'M'], at('1200 HICKORY RD', 'TULSA', 'OK', '74103'), PPO_GOLD, undefined, [], { date: '20261101', plan: PPO_GOLD_MET }),
  member('SBX1000013', ['LUCAS', 'MARTIN', '19880704', 'M'], at('1300 LINDEN ST', 'MILWAUKEE', 'WI', '53202'), PPO_GOLD_SECONDARY),
  member('SBX1000014', ['RUTH', 'HALL', '19470322', 'F'], at('1400 CHESTNUT AVE', 'DAYTON', 'OH', '45402'), MEDICARE_PART_B),
  member('SBX1000067', ['ANY', 'PERSON', '19900101', 'U'], at('67 NOWHERE RD', 'ANYTOWN', 'KS', '66101'), PPO_GOLD, { kind: 'reject', code: '67' }),
  member('SBX1000077', ['ANY', 'PERSON', '19900101', 'U'], at('77 NOWHERE RD', 'ANYTOWN', 'KS', '66101'), PPO_GOLD, { kind: 'reject', code: '77' }),
];

const BY_ID = new Map(MEMBERS.map((m) => [m.memberId, m]));

export function findMember(memberId: string): Member | undefined {
  return BY_ID.get(memberId);
}

/** The member's plan on a date of service (YYYYMMDD). */
export function planOn(member: Member, dateOfService: string): Plan {
  return member.planFrom && dateOfService >= member.planFrom.date ? member.planFrom.plan : member.plan;
}
