/**
 * Plan-level reading of the patient's EB rows: planActive, the plan row (planName, planCoverage,
 * insurance type) and the plan-level network. A row is plan level when it has no EB03 or its EB03
 * includes 30. When the file says both active (EB*1–5) and inactive (EB*6–8) at plan level, the rows are
 * weighed by their dates against the reference date (2100 DTP*472, else BHT04), then by which one names
 * a plan, and the contradiction is reported.
 */
import type { BenefitsInformation, ProviderNetwork } from '../contract/check-response.ts';
import { beginOf, endOf } from './dates.ts';

export interface PlanReading {
  active: boolean | undefined;
  /** The plan-level active row that names the plan (EB05/EB04), if any. */
  planRow: BenefitsInformation | undefined;
  network: ProviderNetwork['status'];
  /** Set when plan-level rows contradict each other: why the decision went the way it did. */
  conflict: string | undefined;
}

const ACTIVE = new Set(['1', '2', '3', '4', '5']);
const INACTIVE = new Set(['6', '7', '8']);
const COST_ROWS = new Set(['A', 'B', 'C', 'F', 'G']);
const DATE_KEYS = ['eligibility', 'eligibilityBegin', 'plan', 'planBegin', 'benefit', 'benefitBegin'];
const END_KEYS = ['eligibility', 'eligibilityEnd', 'plan', 'planEnd', 'benefit', 'benefitEnd'];

/** A row about the plan as a whole: no EB03, or EB03 includes 30 (Health Benefit Plan Coverage). */
export const isPlanLevel = (b: BenefitsInformation) =>
  !b.serviceTypeCodes?.length || b.serviceTypeCodes.includes('30');
const namesPlan = (b: BenefitsInformation) => Boolean(b.planCoverage || b.insuranceTypeCode);

/** Does the row's own date range (DTP in its 2110) cover the reference date? undefined when it has none. */
function appliesOn(b: BenefitsInformation, reference: string | undefined): boolean | undefined {
  const dates = b.benefitsDateInformation;
  if (!dates || !reference) return undefined;
  const begins = DATE_KEYS.map((k) => beginOf(dates[k])).filter((d): d is string => d !== undefined);
  const ends = END_KEYS.filter((k) => k.endsWith('End') || dates[k]?.includes('-'))
    .map((k) => endOf(dates[k]))
    .filter((d): d is string => d !== undefined);
  if (!begins.length && !ends.length) return undefined;
  if (begins.length && begins.every((d) => d > reference)) return false;
  if (ends.length && ends.every((d) => d < reference)) return false;
  return true;
}

function decide(
  active: BenefitsInformation[],
  inactive: BenefitsInformation[],
  all: BenefitsInformation[],
  reference?: string,
) {
  const activeApplies = active.some((b) => appliesOn(b, reference) !== false);
  const inactiveApplies = inactive.some((b) => appliesOn(b, reference) !== false);
  if (activeApplies !== inactiveApplies)
    return {
      active: activeApplies,
      why: `only the ${activeApplies ? 'active' : 'inactive'} rows are dated to cover the reference date`,
    };
  const activeNames = active.some(namesPlan);
  const inactiveNames = inactive.some(namesPlan);
  if (activeNames !== inactiveNames)
    return { active: activeNames, why: `only the ${activeNames ? 'active' : 'inactive'} rows name a plan` };
  const costRows = all.some((b) => COST_ROWS.has(b.code ?? '') && !isPlanLevel(b));
  return {
    active: costRows,
    why: costRows ? 'service-level benefit rows are present' : 'no benefit rows support coverage',
  };
}

/** Two rows about the same insurance type, or one of them names none (then they may be about the same). */
function sameInsurance(a: BenefitsInformation, b: BenefitsInformation): boolean {
  return !a.insuranceTypeCode || !b.insuranceTypeCode || a.insuranceTypeCode === b.insuranceTypeCode;
}

export function readPlan(rows: BenefitsInformation[], reference: string | undefined): PlanReading {
  const activeRows: BenefitsInformation[] = [];
  const inactiveRows: BenefitsInformation[] = [];
  let anyActive = false;
  // EB12 of the plan-level active and cost rows: the network is plan level when they all say one thing.
  let networkY = false;
  let networkN = false;
  for (const b of rows) {
    const code = b.code ?? '';
    const active = ACTIVE.has(code);
    if (active) anyActive = true;
    if (!isPlanLevel(b)) continue;
    if (active) activeRows.push(b);
    else if (INACTIVE.has(code)) inactiveRows.push(b);
    if (active || COST_ROWS.has(code)) {
      const indicator = b.inPlanNetworkIndicatorCode;
      if (indicator === 'Y') networkY = true;
      else if (indicator === 'N') networkN = true;
    }
  }
  let active: boolean | undefined;
  let conflict: string | undefined;
  // Active and inactive rows contradict each other only about the same insurance type (EB04): Medicare
  // Part A not entitled beside Part B active is two answers about two parts, and the patient is covered.
  // Only filtered when there are both (rare): the usual 271 makes no array and no closure here.
  const contradicting =
    activeRows.length && inactiveRows.length
      ? inactiveRows.filter((i) => activeRows.some((a) => sameInsurance(a, i)))
      : inactiveRows;
  if (activeRows.length && inactiveRows.length && !contradicting.length) active = true;
  else if (activeRows.length && inactiveRows.length) {
    const decision = decide(activeRows, contradicting, rows, reference);
    active = decision.active;
    conflict = `Read as ${active ? 'active' : 'inactive'}: ${decision.why}.`;
  } else if (activeRows.length) active = true;
  else if (inactiveRows.length) active = false;
  else if (anyActive) active = true;

  // Only plan-level rows name the plan (docs/x12.md): a dental or vision row's EB05 describes that benefit.
  const planRow = active ? (activeRows.find((b) => b.planCoverage) ?? activeRows.find(namesPlan)) : undefined;
  const network = networkY !== networkN ? (networkY ? 'In Network' : 'Out of Network') : undefined;
  return { active, planRow, network, conflict };
}
