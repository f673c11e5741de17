/**
 * Loop 2110C of the sandbox 271: a plan's EB rows, written per docs/sandbox-271.md. Elements are placed by
 * their X12 position (EB01..EB12), so a row can never drift by one separator.
 */
import { segment, X12_DELIMITERS } from '../../x12/build270.ts';
import type { OtherPayer, Plan, PlanAmounts, ServiceBenefit } from './members.ts';

/** EB01 codes used here. */
const ACTIVE = '1';
const INACTIVE = '6';
const COINSURANCE = 'A';
const COPAY = 'B';
const DEDUCTIBLE = 'C';
const LIMITATION = 'F';
const OUT_OF_POCKET = 'G';
const NON_COVERED = 'I';
const PRIMARY_CARE_PROVIDER = 'L';
const OTHER_PAYER = 'R';
/** EB06 time periods. */
const CALENDAR_YEAR = '23';
const REMAINING = '29';
const VISIT = '27';

/** EB segment from element positions (1-based, as in the guide). */
function eb(elements: Record<number, string | undefined>): string {
  const values: string[] = [];
  for (let i = 1; i <= 12; i++) values.push(elements[i] ?? '');
  return segment('EB', ...values);
}

/** X12 R type as payers write it: `1500`, `0`, `.2`. */
function decimal(n: number): string {
  return String(n).replace(/^0\./, '.');
}

const yesNo = (b: boolean | undefined) => (b === undefined ? undefined : b ? 'Y' : 'N');
const IN_NETWORK = 'Y';
const OUT_OF_NETWORK = 'N';

function planStatusRows(plan: Plan): string[] {
  return plan.statusRows.map((codes) =>
    eb({
      1: plan.active ? ACTIVE : INACTIVE,
      2: 'IND',
      3: codes.join(X12_DELIMITERS.repetition),
      4: plan.active ? plan.insuranceType : undefined,
      5: plan.active ? plan.name : undefined,
    }),
  );
}

/** Calendar-year amount and remaining amount, individual then family, for EB*C or EB*G. */
function planAmountRows(code: string, amounts: PlanAmounts | undefined): string[] {
  if (!amounts) return [];
  const row = (level: string, time: string, amount: number) =>
    eb({ 1: code, 2: level, 3: '30', 6: time, 7: decimal(amount), 12: IN_NETWORK });
  const individual = [
    row('IND', CALENDAR_YEAR, amounts.individual),
    row('IND', REMAINING, amounts.individualRemaining),
  ];
  if (amounts.family === undefined || amounts.familyRemaining === undefined) return individual;
  return [
    ...individual,
    row('FAM', CALENDAR_YEAR, amounts.family),
    row('FAM', REMAINING, amounts.familyRemaining),
  ];
}

/** The rows of one service type, each followed by its HSD and MSG where they apply. */
function serviceRows(plan: Plan, s: ServiceBenefit): string[] {
  const stc = s.serviceTypeCode;
  const auth = yesNo(s.authorizationRequired);
  const out: string[] = [];
  const push = (row: string, hsd?: string) => {
    out.push(row);
    if (hsd) out.push(hsd);
    if (s.message) out.push(segment('MSG', s.message));
  };
  if (!s.covered) {
    push(eb({ 1: NON_COVERED, 2: 'IND', 3: stc }));
    return out;
  }
  if (s.copay !== undefined) {
    push(eb({ 1: COPAY, 2: 'IND', 3: stc, 6: VISIT, 7: decimal(s.copay), 11: auth, 12: IN_NETWORK }));
  }
  if (s.coinsurance !== undefined) {
    push(eb({ 1: COINSURANCE, 2: 'IND', 3: stc, 8: decimal(s.coinsurance), 11: auth, 12: IN_NETWORK }));
  }
  if (s.deductibleApplies !== undefined) {
    if (s.deductibleApplies && !plan.deductible)
      throw new Error(`Sandbox plan data: service ${stc} needs a plan deductible`);
    // A service-level deductible of 0 says the deductible does not apply to this service.
    const amount = s.deductibleApplies ? plan.deductible!.individual : 0;
    push(eb({ 1: DEDUCTIBLE, 2: 'IND', 3: stc, 6: CALENDAR_YEAR, 7: decimal(amount), 12: IN_NETWORK }));
  }
  if (s.visitLimit !== undefined) {
    const limit = String(s.visitLimit);
    push(
      eb({ 1: LIMITATION, 2: 'IND', 3: stc, 6: CALENDAR_YEAR, 9: 'VS', 10: limit, 12: IN_NETWORK }),
      segment('HSD', 'VS', limit, '', '', CALENDAR_YEAR, '1'),
    );
    const remaining = String(s.visitLimit - (s.visitsUsed ?? 0));
    push(eb({ 1: LIMITATION, 2: 'IND', 3: stc, 6: REMAINING, 9: 'VS', 10: remaining, 12: IN_NETWORK }));
  }
  if (s.outOfNetworkCoinsurance !== undefined) {
    push(
      eb({
        1: COINSURANCE,
        2: 'IND',
        3: stc,
        8: decimal(s.outOfNetworkCoinsurance),
        11: auth,
        12: OUT_OF_NETWORK,
      }),
    );
  }
  return out;
}

/** An HMO names the member's primary care provider in a 2120C loop after an EB*L. */
function primaryCareRows(plan: Plan): string[] {
  const pcp = plan.primaryCareProvider;
  if (!pcp || !plan.active) return [];
  return [
    eb({ 1: PRIMARY_CARE_PROVIDER }),
    segment('LS', '2120'),
    segment('NM1', 'P3', '1', pcp.lastName, pcp.firstName, '', '', '', 'XX', pcp.npi),
    segment('LE', '2120'),
  ];
}

/** Other coverage: EB*R for the plan as a whole, the member's id and group there, the COB date, the payer. */
function otherPayerRows(other: OtherPayer): string[] {
  return [
    eb({ 1: OTHER_PAYER, 2: 'IND', 3: '30', 4: other.insuranceType }),
    segment('REF', other.memberIdQualifier, other.memberId),
    ...(other.groupNumber ? [segment('REF', '6P', other.groupNumber)] : []),
    segment('DTP', '290', 'D8', other.coordinationDate),
    segment('LS', '2120'),
    segment('NM1', other.entity, '2', other.payerName, '', '', '', '', 'PI', other.payerId),
    segment('LE', '2120'),
  ];
}

export function benefitRows(plan: Plan): string[] {
  return [
    ...planStatusRows(plan),
    ...(plan.active ? planAmountRows(DEDUCTIBLE, plan.deductible) : []),
    ...(plan.active ? planAmountRows(OUT_OF_POCKET, plan.outOfPocket) : []),
    ...(plan.active ? plan.services.flatMap((s) => serviceRows(plan, s)) : []),
    ...primaryCareRows(plan),
    ...(plan.otherCoverage ?? []).flatMap(otherPayerRows),
  ];
}
