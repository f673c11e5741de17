/**
 * Which remaining (EB06 29) and met-to-date (24) rows go with the deductible or out-of-pocket amount
 * reported (docs/benefit-rules.md 4.3, "Pairing").
 */
import type { BenefitRow } from './rows.ts';
import { pushTo } from './select.ts';

/** An amount candidate: the value of one row. */
export type Candidate = { value: number; row: BenefitRow };

/**
 * An amount and its remaining (or met to date) belong together only when EB04 insurance type, EB12 network
 * and benefit period agree (EB01 and EB02 already do: rows are read per code and level).
 */
export function samePair(a: BenefitRow, b: BenefitRow): boolean {
  return a.insuranceType === b.insuranceType && a.networkCode === b.networkCode && a.period === b.period;
}

/** Some row of `rows` pairs with `row`. */
export function pairsWithAny(rows: readonly BenefitRow[], row: BenefitRow): boolean {
  for (let k = 0; k < rows.length; k++) if (samePair(rows[k]!, row)) return true;
  return false;
}

export const PERIOD_WORDS: Readonly<Record<string, string>> = {
  '21': 'yearly',
  '22': 'service-year',
  '23': 'calendar-year',
  '25': 'contract',
};

const NOTHING_PAIRED = Object.freeze({ rows: undefined, others: 0 });

/** Every candidate of `list` (none when undefined) pairs with `row`. */
export function allPairWith(list: readonly Candidate[] | undefined, row: BenefitRow): boolean {
  if (list === undefined) return true;
  for (let k = 0; k < list.length; k++) if (!samePair(row, list[k]!.row)) return false;
  return true;
}

/**
 * The candidates that pair with one of `partners` (the rows of the amount reported); `others` counts the rest.
 */
export function pairedWith(
  list: Candidate[] | undefined,
  partners: readonly BenefitRow[],
): { rows: Candidate[] | undefined; others: number } {
  if (list === undefined) return NOTHING_PAIRED;
  // Usual case: every candidate pairs with the first partner, and the list is used as it is.
  if (allPairWith(list, partners[0]!)) return { rows: list, others: 0 };
  let rows: Candidate[] | undefined;
  let others = 0;
  for (const c of list) {
    if (pairsWithAny(partners, c.row)) rows = pushTo(rows, c);
    else others++;
  }
  return { rows, others };
}
