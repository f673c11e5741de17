/**
 * Row selection: which of the rows matched to a product a field is read from. Three preferences, applied in
 * this order, each documented in docs/benefit-rules.md "Row selection":
 *   1. match rank (the product's own code before related codes before general codes before plan level);
 *   2. network: in-network (EB12 Y, and W which applies either way) before unknown (U or no EB12) before
 *      out-of-network (N);
 *   3. coverage level and document order, only to decide which value to report when rows of equal standing
 *      disagree, which is a conflict and is named, never settled silently.
 */
import { PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import type { Findings } from './confidence.ts';
import type { BenefitRow, Network } from './rows.ts';
import { type Match, matchProducts, PLAN_MATCH } from './service-types.ts';

export interface MatchedRow {
  row: BenefitRow;
  match: Match;
}

/** Appends `item` to `list`, creating the list on first use (most candidate lists stay empty). */
export function pushTo<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

/** The network class a set of rows was taken from; W counts as in-network. */
export type NetworkClass = 'in' | 'unknown' | 'out';

export function networkClassOf(network: Network): NetworkClass {
  return network === 'both' ? 'in' : network;
}

/**
 * Every row that speaks for each product (matchProducts), best rank first, then document order; indexed like
 * PRODUCT_SERVICE_TYPES. Each row is matched once, for all products, and a row matched the same way for
 * several products (plan level, or one shared rule) is one MatchedRow in each of their lists: the pairs are
 * only read, never modified. Plan-level matches have the worst rank, so they are kept apart in document
 * order and appended after the product's other rows.
 */
export function rowsByProduct(rows: BenefitRow[]): MatchedRow[][] {
  const byProduct: MatchedRow[][] = [];
  const planLevel: MatchedRow[][] = [];
  for (let p = 0; p < PRODUCT_SERVICE_TYPES.length; p++) {
    byProduct.push([]);
    planLevel.push([]);
  }
  const matches: (Match | undefined)[] = [];
  const pairs: (MatchedRow | undefined)[] = [];
  for (const row of rows) {
    matchProducts(row, matches);
    for (let p = 0; p < PRODUCT_SERVICE_TYPES.length; p++) {
      const match = matches[p];
      if (match === undefined) continue;
      let pair: MatchedRow | undefined;
      for (let q = 0; q < p && pair === undefined; q++) if (matches[q] === match) pair = pairs[q];
      pairs[p] = pair ??= { row, match };
      (match === PLAN_MATCH ? planLevel : byProduct)[p]!.push(pair);
    }
  }
  for (let p = 0; p < byProduct.length; p++) {
    const ranked = byRankThenOrder(byProduct[p]!);
    const plan = planLevel[p]!;
    if (ranked.length === 0) byProduct[p] = plan;
    else {
      for (let k = 0; k < plan.length; k++) ranked.push(plan[k]!);
      byProduct[p] = ranked;
    }
  }
  return byProduct;
}

/**
 * `matched` (in document order, as rowsByProduct builds it) ordered by rank, then document order. A list
 * whose ranks never decrease is already in that order; otherwise the rows are taken rank by rank, lowest
 * first, each rank in list order (a product's rows carry only a few distinct ranks).
 */
function byRankThenOrder(matched: MatchedRow[]): MatchedRow[] {
  let sorted = true;
  for (let k = 1; k < matched.length && sorted; k++) {
    if (matched[k]!.match.rank < matched[k - 1]!.match.rank) sorted = false;
  }
  if (sorted) return matched;
  const out: MatchedRow[] = [];
  let rank = Number.NEGATIVE_INFINITY;
  while (out.length < matched.length) {
    let next = Number.POSITIVE_INFINITY;
    for (const m of matched) if (m.match.rank > rank && m.match.rank < next) next = m.match.rank;
    for (const m of matched) if (m.match.rank === next) out.push(m);
    rank = next;
  }
  return out;
}

/**
 * The rows of the best rank among `candidates` (which must already be filtered to what the field needs).
 * `candidates` itself when they all share one rank: the result is only read, never modified.
 */
function bestRank(candidates: MatchedRow[]): MatchedRow[] {
  if (candidates.length === 0) return candidates;
  let best = candidates[0]!.match.rank;
  let mixed = false;
  for (let k = 1; k < candidates.length; k++) {
    const rank = candidates[k]!.match.rank;
    if (rank === best) continue;
    mixed = true;
    if (rank < best) best = rank;
  }
  if (!mixed) return candidates;
  const rows: MatchedRow[] = [];
  for (const c of candidates) if (c.match.rank === best) rows.push(c);
  return rows;
}

const NETWORK_PREFERENCE: Record<Network, number> = { in: 0, both: 0, unknown: 1, out: 2 };
const NETWORK_CLASSES: readonly NetworkClass[] = ['in', 'unknown', 'out'];

/**
 * The rows of the preferred network class. Out-of-network rows are used only when nothing else exists.
 * `rows` is `candidates` itself when they are all of one class: the result is only read, never modified.
 */
export function preferNetwork<T extends { row: BenefitRow }>(
  candidates: T[],
): { rows: T[]; network: NetworkClass | undefined } {
  if (candidates.length === 0) return { rows: candidates, network: undefined };
  const first = NETWORK_PREFERENCE[candidates[0]!.row.network];
  let best = first;
  let mixed = false;
  for (let k = 1; k < candidates.length; k++) {
    const preference = NETWORK_PREFERENCE[candidates[k]!.row.network];
    if (preference === first) continue;
    mixed = true;
    if (preference < best) best = preference;
  }
  if (!mixed) return { rows: candidates, network: NETWORK_CLASSES[best] };
  const rows: T[] = [];
  for (const c of candidates) if (NETWORK_PREFERENCE[c.row.network] === best) rows.push(c);
  return { rows, network: NETWORK_CLASSES[best] };
}

/** Shorthand: best rank, then preferred network. */
export function selectRows(candidates: MatchedRow[]): {
  rows: MatchedRow[];
  network: NetworkClass | undefined;
} {
  return preferNetwork(bestRank(candidates));
}

const LEVEL_ORDER = { individual: 0, other: 1, family: 2 } as const;
const NETWORK_WORDS: Record<Network, string> = {
  in: 'in-network',
  both: 'network-independent (W)',
  unknown: 'network-unstated',
  out: 'out-of-network',
};
const LEVEL_WORDS = { individual: 'individual', other: 'other coverage level', family: 'family' } as const;

function describe(row: BenefitRow, preferred: boolean): string {
  return `${preferred ? 'the safer value, from the' : 'first'} ${NETWORK_WORDS[row.network]} ${LEVEL_WORDS[row.level]} row`;
}

/**
 * Reports one value for `field` from rows of equal standing. Rows that agree are not a conflict; rows that
 * disagree are: the value of the first row (Y before W, individual before family, document order) is
 * reported and the conflict is recorded with every value seen and the one taken.
 */
export function pickValue<V extends number | boolean>(
  field: string,
  candidates: { value: V; row: BenefitRow }[],
  findings: Findings,
  /** On a conflict, report this value if any row gives it (e.g. `true` for authorization: the safer answer). */
  preferOnConflict?: V,
): V | undefined {
  if (candidates.length === 0) return undefined;
  // Usual case: one row, or rows that agree. The first in preference order is reported, no conflict.
  let first = candidates[0]!;
  let agree = true;
  for (let k = 1; k < candidates.length; k++) {
    const c = candidates[k]!;
    if (!Object.is(c.value, first.value) && !(c.value === 0 && first.value === 0)) agree = false;
    if (preference(c, first) < 0) first = c;
  }
  if (agree) return first.value;
  const sorted = [...candidates].sort(preference);
  const distinct = [...new Set(sorted.map((c) => c.value))];
  const chosen = sorted.find((c) => c.value === preferOnConflict) || sorted[0]!;
  findings.conflict(
    `conflicting values for ${field} (${distinct.join(', ')}): took ${chosen.value} (${describe(chosen.row, chosen !== sorted[0])})`,
  );
  return chosen.value;
}

/** Y before W, individual before family, then document order. */
function preference(a: { row: BenefitRow }, b: { row: BenefitRow }): number {
  return (
    Number(a.row.network === 'both') - Number(b.row.network === 'both') ||
    LEVEL_ORDER[a.row.level] - LEVEL_ORDER[b.row.level] ||
    a.row.index - b.row.index
  );
}
