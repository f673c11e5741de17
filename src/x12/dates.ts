/**
 * DTP date qualifiers (element 374) of the 271 and how the API names them: `benefitsDateInformation`
 * keys in 2110 loops and `planDateInformation` (eligibility, plan, service) from the 2100 loop.
 */
import type { PlanDateInformation } from '../contract/check-response.ts';

/** DTP01 qualifier → camelCase key (Change Healthcare/Stedi naming). */
const DATE_KEYS: Readonly<Record<string, string>> = {
  '096': 'discharge',
  '193': 'periodStart',
  '194': 'periodEnd',
  '198': 'completion',
  '290': 'coordinationOfBenefits',
  '291': 'plan',
  '292': 'benefit',
  '295': 'primaryCareProvider',
  '304': 'latestVisitOrConsultation',
  '307': 'eligibility',
  '318': 'added',
  '340': 'cobraBegin',
  '341': 'cobraEnd',
  '342': 'premiumPaidToDateBegin',
  '343': 'premiumPaidToDateEnd',
  '346': 'planBegin',
  '347': 'planEnd',
  '348': 'benefitBegin',
  '349': 'benefitEnd',
  '356': 'eligibilityBegin',
  '357': 'eligibilityEnd',
  '382': 'enrollment',
  '435': 'admission',
  '442': 'dateOfDeath',
  '458': 'certification',
  '472': 'service',
  '539': 'policyEffective',
  '540': 'policyExpiration',
  '636': 'dateOfLastUpdate',
  '771': 'status',
};

export function dateKey(qualifier: string): string {
  return DATE_KEYS[qualifier] ?? `dtp${qualifier}`;
}

const range = (begin?: string, end?: string) => (begin && end ? `${begin}-${end}` : (begin ?? end));

/**
 * planDateInformation from the 2100 DTPs (keyed by dateKey): `eligibility` is 307, else the 356–357 range;
 * `plan` is 291, else 346–347; `service` is 472. Ranges are `YYYYMMDD-YYYYMMDD`.
 */
export function planDates(dates: Readonly<Record<string, string>>): PlanDateInformation | undefined {
  const out: PlanDateInformation = {};
  const eligibility = dates.eligibility ?? range(dates.eligibilityBegin, dates.eligibilityEnd);
  const plan = dates.plan ?? range(dates.planBegin, dates.planEnd);
  if (eligibility) out.eligibility = eligibility;
  if (plan) out.plan = plan;
  if (dates.service) out.service = dates.service;
  if (dates.status) out.status = dates.status;
  return Object.keys(out).length ? out : undefined;
}

/** First date (YYYYMMDD) of a D8 or RD8 value, as a sortable string; undefined when not a date. */
export function beginOf(value: string | undefined): string | undefined {
  const m = value?.match(/^(\d{8})/);
  return m?.[1];
}

/** Last date of a D8 or RD8 value. */
export function endOf(value: string | undefined): string | undefined {
  const m = value?.match(/(\d{8})$/);
  return m?.[1];
}
