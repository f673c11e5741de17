/**
 * How payer search reads text: a payer's name and aliases, and what someone typed, go through the same steps,
 * so "BCBS of TX", "Blue Cross & Blue Shield of Texas" and "bluecross texas" come to the same terms.
 *
 * A term is one or more keys that mean the same thing: `texas` is the key `texas` and the state key `@tx`;
 * an id is the key `#` + its letters and digits (`#84980`). Pure: no I/O.
 */
import { stateByCode, US_STATES } from './us-states.ts';

/** One word of the text, as the alternative keys it may be found under. */
export type Term = readonly string[];

/** Words that say nothing about which payer is meant. */
const STOPWORDS = new Set(['of', 'the', 'and', 'for', 'a', 'an', 'inc', 'llc', 'ltd', 'corp', 'dba']);

/** Abbreviations people type, and the words a payer's name spells out (both sides are rewritten). */
const EXPANSIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['bcbs', ['blue', 'cross', 'blue', 'shield']],
  ['bcbsa', ['blue', 'cross', 'blue', 'shield']],
  ['bc', ['blue', 'cross']],
  ['bs', ['blue', 'shield']],
  ['bluecross', ['blue', 'cross']],
  ['blueshield', ['blue', 'shield']],
  ['uhc', ['united', 'healthcare']],
  ['unitedhealthcare', ['united', 'healthcare']],
  ['unitedhealth', ['united', 'healthcare']],
  ['hlth', ['health']],
  ['hlthcare', ['healthcare']],
  ['ins', ['insurance']],
  ['insur', ['insurance']],
  ['natl', ['national']],
  ['assn', ['association']],
  ['mut', ['mutual']],
  ['svcs', ['services']],
  ['mcd', ['medicaid']],
  ['mcr', ['medicare']],
  ['wc', ['workers', 'compensation']],
  ['workcomp', ['workers', 'compensation']],
]);

/** Two words that are one: "health care" is "healthcare", "work comp" is workers' compensation. */
const PAIRS: ReadonlyMap<string, readonly string[]> = new Map([
  ['health care', ['healthcare']],
  ['work comp', ['workers', 'compensation']],
  ['workers comp', ['workers', 'compensation']],
  ['medi cal', ['medicaid', '@ca']],
]);

/** State codes that are also English words: in a payer's name they stay words ("Humana MA" is not Massachusetts). */
const WORDLIKE_CODES = new Set([
  'in',
  'or',
  'me',
  'hi',
  'ok',
  'as',
  'co',
  'de',
  'la',
  'al',
  'id',
  'ma',
  'oh',
]);

/** State names by their first word, longest first ("west virginia" before "virginia"). */
const STATE_NAMES = new Map<string, { words: string[]; key: string }[]>();
for (const s of US_STATES) {
  const name = { words: words(s.name), key: `@${s.code.toLowerCase()}` };
  const list = STATE_NAMES.get(name.words[0]!) ?? [];
  list.push(name);
  list.sort((a, b) => b.words.length - a.words.length);
  STATE_NAMES.set(name.words[0]!, list);
}

/** Lower case, accents off, `&` as "and", apostrophes dropped ("Workers'" → workers), split on the rest. */
export function words(text: string): string[] {
  // Accents are rare in payer names: NFKD only when there is something outside ASCII.
  const plain = /[^\u0020-\u007e]/.test(text) ? text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : text;
  return plain
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** An id's key: its letters and digits, lower case (`ACME-OLD` → `#acmeold`). */
export function idKey(id: string): string {
  return `#${words(id).join('')}`;
}

/**
 * The terms of a text. `query`: what someone typed, where a two-letter state code is read as the state
 * (a payer's name keeps "in", "or", "ma"… as words).
 */
export function terms(text: string, mode: 'name' | 'query'): Term[] {
  const ws = words(text);
  const out: Term[] = [];
  for (let i = 0; i < ws.length; ) {
    const state = STATE_NAMES.get(ws[i]!)?.find((s) => s.words.every((w, k) => ws[i + k] === w));
    if (state) {
      // The state's words stay searchable while typing ("new" finds New York before "york" is typed).
      out.push([state.key, ...state.words]);
      i += state.words.length;
      continue;
    }
    const pair = PAIRS.get(`${ws[i]} ${ws[i + 1]}`);
    if (pair) {
      push(out, pair);
      i += 2;
      continue;
    }
    const w = ws[i]!;
    i += 1;
    if (STOPWORDS.has(w)) continue;
    const expanded = EXPANSIONS.get(w);
    if (expanded) {
      push(out, expanded);
      continue;
    }
    const code = stateByCode(w);
    if (code && (mode === 'query' || !WORDLIKE_CODES.has(w))) out.push([w, `@${w}`]);
    else out.push([w]);
  }
  return out;
}

function push(out: Term[], keys: readonly string[]): void {
  for (const key of keys) out.push([key]);
}
