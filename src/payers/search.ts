/**
 * Ranked payer search: "bcbs texas", "blue cross tx" and "Blue Cross Blue Shield of Texas" all find the
 * Texas plan first; typos ("aetan", "cigan"), word order and abbreviations (search-terms.ts) are forgiven.
 *
 * The index is built once: every key of every payer (name and alias words, ids, states) points at the payers
 * that have it. A query looks up each of its terms (exact key, keys it begins, keys one or two typos away),
 * and a payer's score is the share of the query it matches, each term weighted by how rare it is, plus a
 * little for how much of the payer's name the query covers (so "aetna" ranks Aetna before Aetna Better
 * Health of Texas). An exact id or alias ranks first. Pure: no I/O, nothing but the list it is given.
 */
import { editDistance } from './edit-distance.ts';
import { idKey, type Term, terms, words } from './search-terms.ts';

export interface SearchablePayer {
  id: string;
  name: string;
  aliases: readonly string[];
  /** Two-letter codes of the states the payer operates in. */
  states?: readonly string[];
}

export interface SearchHit<P extends SearchablePayer = SearchablePayer> {
  payer: P;
  /** Higher is better; above 10 for an exact id or alias. Compare hits of one call only. */
  score: number;
}

export interface PayerSearch<P extends SearchablePayer = SearchablePayer> {
  /**
   * Payers matching `query`, best first (ties in list order). A query with no letter or digit returns every
   * payer in list order. At most `limit` hits (default: every match).
   */
  search(query: string, limit?: number): SearchHit<P>[];
  /** Up to `limit` payers whose id, alias or name is closest to an id nobody listed (a typo, a stale id). */
  closest(unknownId: string, limit?: number): SearchHit<P>[];
}

/** Longer queries are cut here: a payer's name never needs more. */
export const MAX_QUERY_CHARS = 200;
const MAX_TERMS = 16;
/** A payer is a match when it covers at least this share of the query's weight. */
const MIN_COVERAGE = 0.34;
/** Prefix lookups stop after this many keys (the shortest come first in a sorted list, so they are kept). */
const MAX_PREFIX_KEYS = 200;

/** How much a key found in each place says about the payer. */
const NAME = 1;
const ALIAS_WORD = 0.9;
const ID = 1;
const OPERATES_IN = 0.8;

interface Posting {
  payers: number[];
  weights: number[];
  /** 1 when the key comes from the payer's name (for the name-coverage bonus). */
  fromName: number[];
}

export function createPayerSearch<P extends SearchablePayer>(payers: readonly P[]): PayerSearch<P> {
  const index = buildIndex(payers);
  return {
    search: (query, limit) => search(index, query, limit),
    closest: (unknownId, limit = 3) => closest(index, unknownId, limit),
  };
}

interface Index<P extends SearchablePayer> {
  payers: readonly P[];
  postings: Map<string, Posting>;
  /** Every key, sorted: the keys a prefix begins form one run. */
  sorted: string[];
  /** Word keys, and id keys, by length: for typo lookups. */
  wordsByLength: Map<number, string[]>;
  idsByLength: Map<number, string[]>;
  /** Exact ids and aliases (as `idKey`) → payers. */
  ids: Map<string, number[]>;
  /** Distinct terms in each payer's name. */
  nameTerms: Uint16Array;
  /** Each payer's name, and its id and aliases, as letters and digits (exact-name bonus, `closest`). */
  plainNames: string[];
  plainIds: string[][];
  /** Work space of one search (searches are synchronous, so one per index is enough). */
  scratch: { match: Float64Array; named: Uint8Array; touched: Int32Array; stamp: Uint8Array };
}

function buildIndex<P extends SearchablePayer>(payers: readonly P[]): Index<P> {
  const postings = new Map<string, Posting>();
  const ids = new Map<string, number[]>();
  const nameTerms = new Uint16Array(payers.length);
  const plainNames: string[] = [];
  const plainIds: string[][] = [];
  // A payer's keys arrive together, so a key already given to this payer is the posting's last entry.
  const add = (p: number, key: string, weight: number, fromName: number) => {
    let posting = postings.get(key);
    if (!posting) {
      posting = { payers: [], weights: [], fromName: [] };
      postings.set(key, posting);
    }
    const last = posting.payers.length - 1;
    if (posting.payers[last] !== p) {
      posting.payers.push(p);
      posting.weights.push(weight);
      posting.fromName.push(fromName);
    } else {
      posting.weights[last] = Math.max(posting.weights[last]!, weight);
      posting.fromName[last] = Math.max(posting.fromName[last]!, fromName);
    }
  };
  payers.forEach((payer, p) => {
    const name = terms(payer.name, 'name');
    nameTerms[p] = new Set(name.map((t) => t[0])).size;
    for (const term of name) for (const key of term) add(p, key, NAME, 1);
    for (const alias of payer.aliases)
      for (const term of terms(alias, 'name')) for (const key of term) add(p, key, ALIAS_WORD, 0);
    for (const state of payer.states ?? []) add(p, `@${state.toLowerCase()}`, OPERATES_IN, 0);
    const plain: string[] = [];
    for (const id of [payer.id, ...payer.aliases]) {
      const key = idKey(id);
      if (key.length < 2) continue;
      plain.push(key.slice(1));
      add(p, key, ID, 0);
      const list = ids.get(key);
      if (!list) ids.set(key, [p]);
      else if (list[list.length - 1] !== p) list.push(p);
    }
    plainIds.push(plain);
    plainNames.push(words(payer.name).join(''));
  });
  const sorted = [...postings.keys()].sort();
  const wordsByLength = new Map<number, string[]>();
  const idsByLength = new Map<number, string[]>();
  for (const key of sorted) {
    if (key.startsWith('@')) continue;
    const byLength = key.startsWith('#') ? idsByLength : wordsByLength;
    const list = byLength.get(key.length) ?? [];
    list.push(key);
    byLength.set(key.length, list);
  }
  const scratch = {
    match: new Float64Array(payers.length * MAX_TERMS),
    named: new Uint8Array(payers.length * MAX_TERMS),
    touched: new Int32Array(payers.length),
    stamp: new Uint8Array(payers.length),
  };
  return {
    payers,
    postings,
    sorted,
    wordsByLength,
    idsByLength,
    ids,
    nameTerms,
    plainNames,
    plainIds,
    scratch,
  };
}

/** The keys a query key may stand for, with how good each match is (1 = the same key). */
function candidates(index: Index<SearchablePayer>, key: string): Map<string, number> {
  const found = new Map<string, number>();
  if (index.postings.has(key)) found.set(key, 1);
  const body = key.replace(/^[#@]/, '');
  // A prefix: the word being typed, or an id's first digits.
  if (body.length >= (key.startsWith('#') ? 3 : 2)) {
    let i = lowerBound(index.sorted, key);
    for (let n = 0; n < MAX_PREFIX_KEYS && i < index.sorted.length; i++, n++) {
      const other = index.sorted[i]!;
      if (!other.startsWith(key)) break;
      if (other !== key) found.set(other, 0.5 + 0.4 * (key.length / other.length));
    }
  }
  // A typo: one edit in a word of 4-8 letters, two from 9 (medicaid is not medicare); ids with digits get one (a mistyped digit).
  const isId = key.startsWith('#');
  if (!key.startsWith('@') && body.length >= 4 && (!isId || /\d/.test(body))) {
    const maxEdits = !isId && body.length >= 9 ? 2 : 1;
    const byLength = isId ? index.idsByLength : index.wordsByLength;
    for (let len = key.length - maxEdits; len <= key.length + maxEdits; len++) {
      for (const other of byLength.get(len) ?? []) {
        if (found.has(other)) continue;
        const d = editDistance(key, other, maxEdits);
        if (d <= maxEdits) found.set(other, d === 1 ? 0.72 : 0.55);
      }
    }
  }
  return found;
}

function search<P extends SearchablePayer>(index: Index<P>, query: string, limit?: number): SearchHit<P>[] {
  const max = Math.max(0, limit ?? index.payers.length);
  const text = query.slice(0, MAX_QUERY_CHARS);
  const queryTerms = dedupe(terms(text, 'query')).slice(0, MAX_TERMS);
  if (!queryTerms.length) return index.payers.slice(0, max).map((payer) => ({ payer, score: 0 }));

  const n = queryTerms.length;
  const total = index.payers.length;
  // Scratch rows, reused: match[p * MAX_TERMS + t] is how well payer p matches term t, named[…] whether
  // through its name; `touched` lists the payers any term reached, `stamp` counts each payer once per term.
  const { match, named, touched, stamp } = index.scratch;
  let touchedCount = 0;
  let weightSum = 0;
  const weights: number[] = [];
  queryTerms.forEach((term, t) => {
    let matched = 0;
    for (const key of withIdKey(term)) {
      for (const [other, quality] of candidates(index, key)) {
        const posting = index.postings.get(other)!;
        for (let i = 0; i < posting.payers.length; i++) {
          const p = posting.payers[i]!;
          if (stamp[p] === 0) touched[touchedCount++] = p;
          if (stamp[p] !== t + 1) {
            stamp[p] = t + 1;
            matched++;
          }
          const value = quality * posting.weights[i]!;
          const at = p * MAX_TERMS + t;
          if (value > match[at]!) {
            match[at] = value;
            named[at] = posting.fromName[i]!;
          }
        }
      }
    }
    // Rare terms say more: an unmatched term weighs like the rarest (it lowers every payer's share alike).
    const weight = Math.log(1 + total / (matched || 1));
    weights.push(weight);
    weightSum += weight;
  });

  const exact = index.ids.get(idKey(text)) ?? [];
  const plainQuery = words(text).join('');
  // People type a name from its beginning: a name that starts with the first word typed gains a little.
  const firstWord = queryTerms[0]!.find((key) => !key.startsWith('@')) ?? '';
  const hits: { p: number; score: number }[] = [];
  for (let k = 0; k < touchedCount; k++) {
    const p = touched[k]!;
    let covered = 0;
    let namedTerms = 0;
    for (let t = 0, at = p * MAX_TERMS; t < n; t++, at++) {
      covered += weights[t]! * match[at]!;
      namedTerms += named[at]!;
      match[at] = 0;
      named[at] = 0;
    }
    stamp[p] = 0;
    const coverage = covered / weightSum;
    const isExact = exact.includes(p);
    if (coverage < MIN_COVERAGE && !isExact) continue;
    const nameShare = Math.min(1, namedTerms / Math.max(1, index.nameTerms[p]!));
    const plainName = index.plainNames[p]!;
    const sameName = plainName === plainQuery ? 0.1 : 0;
    const sameStart = firstWord && plainName.startsWith(firstWord) ? 0.05 : 0;
    hits.push({ p, score: coverage + 0.15 * nameShare + sameName + sameStart + (isExact ? 10 : 0) });
  }
  for (const p of exact) if (!hits.some((h) => h.p === p)) hits.push({ p, score: 10 });
  hits.sort((a, b) => b.score - a.score || a.p - b.p);
  return hits.slice(0, max).map((h) => ({ payer: index.payers[h.p]!, score: round(h.score) }));
}

/** A query term's keys, plus the id it could be (`877` may begin the alias 87726). */
function withIdKey(term: Term): string[] {
  const first = term[0]!;
  return first.startsWith('@') || first.startsWith('#') ? [...term] : [...term, `#${first}`];
}

function closest<P extends SearchablePayer>(
  index: Index<P>,
  unknownId: string,
  limit: number,
): SearchHit<P>[] {
  const key = idKey(unknownId.slice(0, MAX_QUERY_CHARS));
  const body = key.slice(1);
  if (!body) return [];
  const maxEdits = Math.min(2, Math.max(1, Math.floor(body.length / 3)));
  const near: { p: number; distance: number }[] = [];
  index.plainIds.forEach((ids, p) => {
    let distance = editDistance(body, index.plainNames[p]!, maxEdits);
    for (const other of ids) {
      // An id cut short or run long ("6005", "600541") is one edit away whatever its length.
      const prefixed =
        Math.min(other.length, body.length) >= 4 && (other.startsWith(body) || body.startsWith(other));
      distance = Math.min(distance, prefixed ? 1 : editDistance(body, other, maxEdits));
    }
    if (distance <= maxEdits) near.push({ p, distance });
  });
  near.sort((a, b) => a.distance - b.distance || a.p - b.p);
  const hits = near.slice(0, limit).map(({ p, distance }) => ({
    payer: index.payers[p]!,
    score: round(1 - distance / (body.length + 1)),
  }));
  // Not a typo of an id but words ("BCBS-TX"): what a search for them finds best.
  if (hits.length < limit) {
    for (const hit of search(index, unknownId, limit)) {
      if (hits.length >= limit) break;
      if (hit.score >= 0.6 && !hits.some((h) => h.payer === hit.payer))
        hits.push({ ...hit, score: round(hit.score / 2) });
    }
  }
  return hits;
}

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** "blue cross blue shield" asks for blue once. */
function dedupe(list: Term[]): Term[] {
  const seen = new Set<string>();
  return list.filter((t) => !seen.has(t.join(' ')) && seen.add(t.join(' ')));
}

const round = (x: number) => Math.round(x * 1000) / 1000;
