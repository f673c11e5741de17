/**
 * Which rows may give an outpatient entry its values (docs/benefit-rules.md "Scope of a row"). The seven
 * product service types are outpatient services, so:
 *  - Medicare Part A rows (EB04 `MA`: hospital, skilled nursing, hospice, home health) are set aside: they
 *    stay in benefitsInformation and would feed an inpatient service type only; outpatient values come from
 *    Part B (`MB`).
 *  - Of rows that differ only by their benefit period (DTP 291/292 under the EB), the current period's are
 *    used: the one containing the date of service (else today, both given as `asOf`), else the latest begun.
 *  - Per-day, per-episode/admission, lifetime and day-range amounts (rows.ts `timeScope`) stay matched (they
 *    still say the service is covered) but never become copay, coinsurance, deductible or out-of-pocket:
 *    fields.ts and amounts.ts skip them, and `timeScopeCriterion` names them.
 *  - Procedure-specific rows (EB13 without EB03) are not plan level (rows.ts), so they match no product
 *    except Medical Nutrition by an MNT procedure code.
 */
import { PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import type { BenefitRow } from './rows.ts';
import { type Match, matchProducts } from './service-types.ts';

export const PART_A = 'MA';
const PART_B = 'MB';
/** EB01 codes whose rows carry a value a product entry reports (copay, coinsurance, amounts, limits). */
const VALUE_CODES = new Set(['A', 'B', 'C', 'F', 'G']);

export interface SetAsideRow {
  row: BenefitRow;
  /** Why the row was set aside: Medicare Part A, or the criterion naming the benefit period chosen. */
  reason: 'partA' | string;
}

const NO_DATE = '';

function beginOf(period: string): string {
  return period.length >= 8 ? period.slice(0, 8) : NO_DATE;
}

function endOf(period: string): string {
  return period.length >= 8 ? period.slice(-8) : NO_DATE;
}

/** `YYYYMMDD` from `YYYYMMDD` or `YYYY-MM-DD`; undefined when neither. */
export function normaliseDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const digits = value.replaceAll('-', '');
  return /^\d{8}$/.test(digits) ? digits : undefined;
}

/** The period to use among `periods` (distinct, as sent): containing `asOf`, else the latest begun by then, else the earliest. */
function currentPeriod(periods: string[], asOf: string | undefined): { period: string; why: string } {
  if (asOf !== undefined) {
    for (const p of periods) {
      if (beginOf(p) <= asOf && asOf <= endOf(p)) return { period: p, why: `it contains ${asOf}` };
    }
  }
  let latest: string | undefined;
  for (const p of periods) {
    if (asOf !== undefined && beginOf(p) > asOf) continue;
    if (latest === undefined || beginOf(p) > beginOf(latest)) latest = p;
  }
  if (latest !== undefined) return { period: latest, why: 'the latest period begun' };
  const earliest = [...periods].sort()[0]!;
  return { period: earliest, why: 'the earliest period' };
}

/** Rows that differ only by their period share a family: EB01, EB02, EB03, EB04, EB12. */
function familyOf(row: BenefitRow): string {
  return `${row.code}|${row.level}|${row.serviceTypeCodes.join('^')}|${row.insuranceType ?? ''}|${row.networkCode ?? ''}`;
}

/**
 * Rows of a family whose benefit period is not the current one, each with the criterion naming the choice;
 * undefined when no family has rows of several periods (the usual 271: no DTP 291/292 under its EBs).
 */
export function stalePeriods(
  rows: readonly BenefitRow[],
  asOf: string | undefined,
): Map<BenefitRow, string> | undefined {
  // Usual case: no row has a period, or every row the same one (Medicare sends one plan year on each EB);
  // then no family has two, and no family key need be made.
  let first: string | undefined;
  let several = false;
  for (let k = 0; k < rows.length && !several; k++) {
    const period = rows[k]!.period;
    if (period === undefined) continue;
    if (first === undefined) first = period;
    else several = period !== first;
  }
  if (!several) return undefined;
  let families: Map<string, BenefitRow[]> | undefined;
  for (const row of rows) {
    if (row.period === undefined) continue;
    families ??= new Map();
    const key = familyOf(row);
    const list = families.get(key);
    if (list === undefined) families.set(key, [row]);
    else list.push(row);
  }
  if (families === undefined) return undefined;
  let stale: Map<BenefitRow, string> | undefined;
  for (const list of families.values()) {
    const periods = [...new Set(list.map((r) => r.period!))];
    if (periods.length < 2) continue;
    const { period, why } = currentPeriod(periods, asOf);
    const note = `benefit period ${period} used (DTP 291/292): ${why}; rows of other periods set aside`;
    stale ??= new Map();
    for (const r of list) if (r.period !== period) stale.set(r, note);
  }
  return stale;
}

/**
 * The set-aside rows (Part A, other periods) each product would have matched, indexed like
 * PRODUCT_SERVICE_TYPES; undefined when there are none.
 */
export function setAsideByProduct(setAside: readonly SetAsideRow[]): SetAsideRow[][] | undefined {
  if (setAside.length === 0) return undefined;
  const byProduct: SetAsideRow[][] = PRODUCT_SERVICE_TYPES.map(() => []);
  const matches: (Match | undefined)[] = [];
  for (const s of setAside) {
    matchProducts(s.row, matches);
    for (let p = 0; p < byProduct.length; p++) if (matches[p] !== undefined) byProduct[p]!.push(s);
  }
  return byProduct;
}

/**
 * Criteria for the rows set aside from one product's entry: "Part B values used; Part A per-day amounts
 * ignored" (when Part A rows with values were set aside) and the benefit period chosen.
 */
export function setAsideCriteria(
  setAside: readonly SetAsideRow[],
  matched: readonly { row: BenefitRow }[],
): string[] {
  const criteria: string[] = [];
  const partAScopes: string[] = [];
  let partA = false;
  for (const s of setAside) {
    if (s.reason !== 'partA') {
      if (!criteria.includes(s.reason)) criteria.push(s.reason);
      continue;
    }
    if (!VALUE_CODES.has(s.row.code)) continue;
    partA = true;
    const scope = s.row.timeScope?.replace(/ \(.*$/, '');
    if (scope !== undefined && !partAScopes.includes(scope)) partAScopes.push(scope);
  }
  if (partA) {
    const what = partAScopes.length > 0 ? `Part A ${partAScopes.join(', ')} amounts` : 'Part A amounts';
    const partB = matched.some((m) => m.row.insuranceType === PART_B);
    criteria.unshift(
      partB
        ? `Part B values used; ${what} ignored`
        : `${what} ignored: outpatient values come from Medicare Part B (EB04 MB), which sent none here`,
    );
  }
  return criteria;
}

/**
 * The criterion naming the time-scoped amounts among `matched` that were not used as copay, coinsurance,
 * deductible or out-of-pocket; undefined when there are none (most entries: no array is made for them).
 */
export function timeScopeCriterion(matched: readonly { row: BenefitRow }[]): string | undefined {
  let scopes: string[] | undefined;
  for (const m of matched) {
    const scope = m.row.timeScope;
    if (scope === undefined || !VALUE_CODES.has(m.row.code) || m.row.code === 'F') continue;
    scopes ??= [];
    if (!scopes.includes(scope)) scopes.push(scope);
  }
  if (scopes === undefined) return undefined;
  return `${scopes.join(', ')} amounts not used as copay, coinsurance, deductible or out-of-pocket`;
}
