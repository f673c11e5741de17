/**
 * Test helper: writes one benefitsInformation object the way the X12 parser produces it (strings for
 * amounts, an array for EB03), from the EB text of docs/sandbox-271.md so a reader can check each test
 * row against the conventions. Element positions are the real X12 ones: EB01 code, EB02 level, EB03 STCs
 * (repetitions split on `^`), EB04 insurance type, EB05 plan, EB06 time, EB07 amount, EB08 percent,
 * EB09 quantity qualifier, EB10 quantity, EB11 auth, EB12 network. MSG and HSD come as options.
 */
import type { BenefitsInformation } from '../../src/contract/check-response.ts';

export interface EbExtras {
  msg?: string[];
  /** HSD elements: [HSD01 qualifier, HSD02 quantity, HSD03, HSD04, HSD05 period, HSD06 periods]. */
  hsd?: string[][];
  procedureCode?: string;
  /** EB13 as parsed: qualifier, code and modifiers (e.g. `['HC', '80061']`); overrides `procedureCode`. */
  procedure?: string[];
  /** DTP under the EB, by the parser's key: `plan` (291), `benefit` (292), e.g. `{ plan: '20260101-20261231' }`. */
  dates?: Record<string, string>;
}

export function eb(text: string, extras: EbExtras = {}): BenefitsInformation {
  const e = text.split('*');
  if (e[0] !== 'EB') throw new Error('test rows start with EB');
  const el = (n: number) => (e[n] === undefined || e[n] === '' ? undefined : e[n]);
  const row: BenefitsInformation = {};
  const set = (key: keyof BenefitsInformation, n: number) => {
    const v = el(n);
    if (v !== undefined) (row as Record<string, unknown>)[key] = v;
  };
  set('code', 1);
  set('coverageLevelCode', 2);
  if (el(3) !== undefined) row.serviceTypeCodes = el(3)!.split('^');
  set('insuranceTypeCode', 4);
  set('planCoverage', 5);
  set('timeQualifierCode', 6);
  set('benefitAmount', 7);
  set('benefitPercent', 8);
  set('quantityQualifierCode', 9);
  set('benefitQuantity', 10);
  set('authOrCertIndicator', 11);
  set('inPlanNetworkIndicatorCode', 12);
  if (extras.msg) row.additionalInformation = extras.msg.map((description) => ({ description }));
  if (extras.hsd) {
    row.benefitsServiceDelivery = extras.hsd.map(([q, n, unit, modulus, period, periods]) => {
      const d: NonNullable<BenefitsInformation['benefitsServiceDelivery']>[number] = {};
      if (q) d.quantityQualifierCode = q;
      if (n) d.quantity = n;
      if (unit) d.unitForMeasurementCode = unit;
      if (modulus) d.sampleSelectionModulus = modulus;
      if (period) d.timePeriodQualifierCode = period;
      if (periods) d.numOfPeriods = periods;
      return d;
    });
  }
  if (extras.procedureCode) {
    row.compositeMedicalProcedureIdentifier = {
      productOrServiceIdQualifierCode: 'HC',
      procedureCode: extras.procedureCode,
    };
  }
  if (extras.procedure) {
    const [qualifier, procedureCode, ...modifiers] = extras.procedure;
    row.compositeMedicalProcedureIdentifier = { productOrServiceIdQualifierCode: qualifier, procedureCode };
    if (modifiers.length) row.compositeMedicalProcedureIdentifier.procedureModifiers = modifiers;
  }
  if (extras.dates) row.benefitsDateInformation = { ...extras.dates };
  return row;
}
