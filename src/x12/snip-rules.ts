/**
 * The segment rules of SNIP levels 1 and 2 (snip.ts) as tables, and their fast path: the tree builder
 * (loops.ts) asks `breaksRules` of every segment during its one walk over a transaction, with the segment id
 * it has just read, so validation walks no segment a second time; snip.ts `validate271` then reads again
 * only the segments found here to break a rule (most break none) and says what is wrong.
 */
import {
  AAA03_REJECT_REASONS,
  AAA04_FOLLOW_UP_ACTIONS,
  HSD01_QUANTITY_QUALIFIERS,
  HSD03_UNITS,
  HSD07_DELIVERY_FREQUENCIES,
  HSD08_DELIVERY_TIMES,
  INS02_RELATIONSHIP_CODES,
  TIME_PERIOD_QUALIFIERS,
} from './codes.ts';
import { CODE_KEY_COUNT, codeKeyOf, type X12Tokens } from './tokenizer.ts';

/** One bit table for every list: MEMBERS[key] has a list's bit set when the code of `key` is in it. */
const MEMBERS = new Uint32Array(CODE_KEY_COUNT);
let listsMade = 0;

/** A code list as a bit of MEMBERS (codes of 1–3 letters or digits) plus a set of longer codes. */
export class CodeList {
  readonly mask: number;
  private readonly long = new Set<string>();
  private readonly shortCodes: number[] = [];

  constructor(values: Iterable<string>) {
    if (listsMade === 32) throw new Error('snip.ts: more than 32 code lists');
    this.mask = 1 << listsMade++;
    for (const value of values) {
      const key = codeKeyOf(value);
      if (key >= 0) {
        MEMBERS[key]! |= this.mask;
        this.shortCodes.push(key);
      } else this.long.add(value);
    }
  }

  has(code: string): boolean {
    const key = codeKeyOf(code);
    return key >= 0 ? (MEMBERS[key]! & this.mask) !== 0 : this.long.has(code);
  }

  /** The keys of the list's short codes (1–3 letters or digits), in the order they were given. */
  shortKeys(): number[] {
    return this.shortCodes;
  }

  hasKey(key: number): boolean {
    return key >= 0 && (MEMBERS[key]! & this.mask) !== 0;
  }

  /** Element n of segment i, not blank, whose code key is `key`, is one of the list's codes. */
  acceptsKey(t: X12Tokens, i: number, n: number, key: number): boolean {
    if (key >= 0) return (MEMBERS[key]! & this.mask) !== 0;
    return this.long.size > 0 && this.long.has(t.code(i, n));
  }
}

const codes = (table: Readonly<Record<string, string>>) => new CodeList(Object.keys(table));
const YES_NO = new CodeList(['Y', 'N']);
const TIME_PERIODS = codes(TIME_PERIOD_QUALIFIERS);

/** Element number → its code list, per segment id. */
const CODE_LISTS: Readonly<Record<string, ReadonlyArray<readonly [number, CodeList]>>> = {
  BHT: [
    [1, new CodeList(['0022'])],
    [2, new CodeList(['11', '06'])],
  ],
  HL: [[4, new CodeList(['0', '1'])]],
  TRN: [[1, new CodeList(['1', '2'])]],
  AAA: [
    [1, YES_NO],
    [3, codes(AAA03_REJECT_REASONS)],
    [4, codes(AAA04_FOLLOW_UP_ACTIONS)],
  ],
  NM1: [[2, new CodeList(['1', '2'])]],
  DMG: [
    [1, new CodeList(['D8'])],
    [3, new CodeList(['M', 'F', 'U'])],
  ],
  INS: [
    [1, YES_NO],
    [2, codes(INS02_RELATIONSHIP_CODES)],
  ],
  DTP: [[2, new CodeList(['D8', 'RD8'])]],
  HSD: [
    [1, codes(HSD01_QUANTITY_QUALIFIERS)],
    [3, codes(HSD03_UNITS)],
    [5, TIME_PERIODS],
    [7, codes(HSD07_DELIVERY_FREQUENCIES)],
    [8, codes(HSD08_DELIVERY_TIMES)],
  ],
};

/** Elements the 271 requires whenever the segment is sent (usage R in 005010X279A1). */
const REQUIRED: Readonly<Record<string, readonly number[]>> = {
  BHT: [1, 2],
  // HL01 and HL03 have their own codes (X12_HL_EMPTY_ID, X12_HL_LEVEL_INFERRED).
  HL: [4],
  TRN: [1, 2, 3],
  AAA: [1, 3, 4],
  NM1: [1, 2],
  REF: [1, 2],
  N3: [1],
  DMG: [1, 2],
  INS: [1, 2],
  DTP: [1, 2, 3],
  MSG: [1],
  LS: [1],
  LE: [1],
};

/** The last element each segment has (the standard's count): anything after it is extra. */
const LAST_ELEMENT: Readonly<Record<string, number>> = {
  ST: 3,
  SE: 2,
  BHT: 6,
  HL: 4,
  TRN: 4,
  AAA: 4,
  NM1: 12,
  REF: 4,
  N3: 2,
  N4: 7,
  DMG: 11,
  DTP: 3,
  EB: 14,
  HSD: 8,
  MSG: 3,
  LS: 1,
  LE: 1,
};

/** What is checked on one segment id; built once from the tables above. */
export interface SegmentRule {
  id: string;
  last: number;
  required: readonly number[];
  listElements: readonly number[];
  lists: readonly CodeList[];
  /** For the fast path: required elements without a code list (the others are checked with their list). */
  requiredOnly: readonly number[];
  /** For the fast path, by list: its element is also required (a blank one breaks the rule). */
  listRequired: readonly boolean[];
  /** AAA02 is not used in the 271: a sent one breaks the rule. */
  unusedSecond: boolean;
}

const RULES: ReadonlyMap<string, SegmentRule> = new Map(
  [...new Set([...Object.keys(CODE_LISTS), ...Object.keys(REQUIRED), ...Object.keys(LAST_ELEMENT)])].map(
    (id) => [
      id,
      {
        id,
        last: LAST_ELEMENT[id] ?? Number.MAX_SAFE_INTEGER,
        required: REQUIRED[id] ?? [],
        listElements: (CODE_LISTS[id] ?? []).map(([n]) => n),
        lists: (CODE_LISTS[id] ?? []).map(([, allowed]) => allowed),
        requiredOnly: (REQUIRED[id] ?? []).filter((n) => !(CODE_LISTS[id] ?? []).some(([e]) => e === n)),
        listRequired: (CODE_LISTS[id] ?? []).map(([n]) => (REQUIRED[id] ?? []).includes(n)),
        unusedSecond: id === 'AAA',
      },
    ],
  ),
);

/**
 * The rule of each segment-id slot (tokenizer.ts `segmentSlot`), filled as ids are met: 0 not looked up
 * yet, 1 no rule, else 2 + the rule's index in RULE_LIST. A lookup by number per segment; the Map lookup by
 * id string it replaces was a measurable part of every parse.
 */
const RULE_OF_SLOT = new Uint8Array(CODE_KEY_COUNT + 1);
const RULE_LIST: readonly SegmentRule[] = [...RULES.values()];
const NO_RULE = 1;
// Slot 0: an id that is not a 2–3 character code, which no rule names.
RULE_OF_SLOT[0] = NO_RULE;

/** The rule of segment i, whose id is `id` and whose slot (tokenizer.ts `segmentSlot`) is `slot`. */
export function ruleOf(id: string, slot: number): SegmentRule | undefined {
  let index = RULE_OF_SLOT[slot]!;
  if (index === 0) {
    const rule = RULES.get(id);
    index = rule === undefined ? NO_RULE : 2 + RULE_LIST.indexOf(rule);
    RULE_OF_SLOT[slot] = index;
  }
  return index === NO_RULE ? undefined : RULE_LIST[index - 2];
}

/**
 * The fast path's form of the rules: per rule, a run of checks in one Int32Array, each CHECK numbers long
 * (element, what to check, its list in LISTS, up to three codes), so a segment is checked by reading small
 * integers instead of walking the rule's arrays. A list of at most three short codes is compared key by key
 * (the common case: D8/RD8, 1/2, Y/N, 0/1); a larger one by its bit in MEMBERS.
 */
const CHECK = 6;
const BLANK_FAILS = 1;
const SENT_FAILS = 2;
const LISTED = 3;
const LISTED_REQUIRED = 4;
const NO_KEY = -9;
/** In place of the codes: the list has more than three short codes; its bit in MEMBERS is tested. */
const LARGE = -10;
const PROGRAM_START = new Int32Array(RULE_LIST.length + 1);
const LAST = RULE_LIST.map((rule) => rule.last);
/** The list of each LISTED check, for a large list or an element that is no short code (e.g. BHT01 0022). */
const LISTS: CodeList[] = [];
const PROGRAM = new Int32Array(
  RULE_LIST.flatMap((rule, r) => {
    const checks: number[] = [];
    for (const n of rule.requiredOnly) checks.push(n, BLANK_FAILS, 0, NO_KEY, NO_KEY, NO_KEY);
    rule.listElements.forEach((n, k) => {
      const keys = rule.lists[k]!.shortKeys();
      const codes = keys.length <= 3 ? [0, 1, 2].map((j) => keys[j] ?? NO_KEY) : [LARGE, NO_KEY, NO_KEY];
      checks.push(n, rule.listRequired[k] ? LISTED_REQUIRED : LISTED, LISTS.length, ...codes);
      LISTS.push(rule.lists[k]!);
    });
    if (rule.unusedSecond) checks.push(2, SENT_FAILS, 0, NO_KEY, NO_KEY, NO_KEY);
    PROGRAM_START[r + 1] = PROGRAM_START[r]! + checks.length;
    return checks;
  }),
);

/**
 * The fast path, for every segment of a transaction (code keys compared as numbers, no strings made): true
 * when segment i, whose id the caller has just read as `id`, breaks a rule. Most break none.
 */
export function breaksRules(t: X12Tokens, i: number, id: string): boolean {
  const slot = t.segmentSlot(i);
  let index = RULE_OF_SLOT[slot]!;
  if (index === 0) {
    ruleOf(id, slot);
    index = RULE_OF_SLOT[slot]!;
  }
  if (index === NO_RULE) return false;
  const r = index - 2;
  if (t.elementCount(i) > LAST[r]!) return true;
  const end = PROGRAM_START[r + 1]!;
  for (let c = PROGRAM_START[r]!; c < end; c += CHECK) {
    const n = PROGRAM[c]!;
    const what = PROGRAM[c + 1]!;
    if (what === BLANK_FAILS) {
      if (t.isBlank(i, n)) return true;
    } else if (what === SENT_FAILS) {
      if (!t.isBlank(i, n)) return true;
    } else if (!listed(t, i, n, what === LISTED_REQUIRED, c)) return true;
  }
  return false;
}

/** Element n of segment i is blank and not required, or one of its list's codes (the LISTED check at c). */
function listed(t: X12Tokens, i: number, n: number, required: boolean, c: number): boolean {
  const key = t.codeKey(i, n);
  if (key === -1) return !required;
  if (key >= 0 && (key === PROGRAM[c + 3] || key === PROGRAM[c + 4] || key === PROGRAM[c + 5])) return true;
  // A short code of a small list is one of its keys; anything else is asked of the list itself.
  if (key >= 0 && PROGRAM[c + 3] !== LARGE) return false;
  return LISTS[PROGRAM[c + 2]!]!.acceptsKey(t, i, n, key);
}
