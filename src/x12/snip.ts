/**
 * Structural validation of one 271 transaction, SNIP levels 1 and 2, as warnings that never fail a usable
 * answer: element values against the code lists of codes.ts (X12_INVALID_CODE), required elements that are
 * empty (X12_MISSING_ELEMENT), elements past a segment's last one or in a not-used place
 * (X12_EXTRA_ELEMENT), and HL04 announcing children that never come (X12_HL04_MISMATCH). The envelope's
 * own oddities are found where the envelope is read (isa.ts, envelope.ts). Messages quote codes only: a
 * value is shown when it is code-shaped (1–3 letters or digits), never otherwise.
 *
 * It runs over every segment of every answer, so each segment is first checked on the fast path (code keys
 * and bit tests, no strings made); only a segment that fails it is read again to say what is wrong. The
 * patient's EB rows are checked from the BenefitsInformation objects the reader built from them
 * (checkBenefitRow): an unknown code is one the reader found no name for, so nothing is read twice, and
 * the reader flags the rows worth checking (SuspectBenefitRows). EB rows of other people in the answer,
 * which reach no result, are not checked.
 */

import type { BenefitsInformation } from '../contract/check-response.ts';
import {
  AAA03_REJECT_REASONS,
  AAA04_FOLLOW_UP_ACTIONS,
  EB11_AUTHORIZATION_INDICATORS,
  HSD01_QUANTITY_QUALIFIERS,
  HSD03_UNITS,
  HSD07_DELIVERY_FREQUENCIES,
  HSD08_DELIVERY_TIMES,
  INS02_RELATIONSHIP_CODES,
  TIME_PERIOD_QUALIFIERS,
} from './codes.ts';
import type { TransactionSpan } from './envelope.ts';
import { type IssueLog, warning } from './issues.ts';
import type { PartyLoop, Transaction271Tree } from './loops.ts';
import { CODE_KEY_COUNT, codeKeyOf, type X12Tokens } from './tokenizer.ts';

/** One bit table for every list: MEMBERS[key] has a list's bit set when the code of `key` is in it. */
const MEMBERS = new Uint32Array(CODE_KEY_COUNT);
let listsMade = 0;

/** A code list as a bit of MEMBERS (codes of 1–3 letters or digits) plus a set of longer codes. */
class CodeList {
  readonly mask: number;
  private readonly long = new Set<string>();

  constructor(values: Iterable<string>) {
    if (listsMade === 32) throw new Error('snip.ts: more than 32 code lists');
    this.mask = 1 << listsMade++;
    for (const value of values) {
      const key = codeKeyOf(value);
      if (key >= 0) MEMBERS[key]! |= this.mask;
      else this.long.add(value);
    }
  }

  has(code: string): boolean {
    const key = codeKeyOf(code);
    return key >= 0 ? (MEMBERS[key]! & this.mask) !== 0 : this.long.has(code);
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
const ZERO = codeKeyOf('0');
const ONE = codeKeyOf('1');

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
interface SegmentRule {
  id: string;
  last: number;
  required: readonly number[];
  listElements: readonly number[];
  lists: readonly CodeList[];
  /** For the fast path: required elements without a code list (the others are checked with their list). */
  requiredOnly: readonly number[];
  /** For the fast path, by list: its element is also required (a blank one breaks the rule). */
  listRequired: readonly boolean[];
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

function ruleOfSlot(t: X12Tokens, i: number, slot: number): SegmentRule | undefined {
  let index = RULE_OF_SLOT[slot]!;
  if (index === 0) {
    const rule = RULES.get(t.segmentId(i));
    index = rule === undefined ? NO_RULE : 2 + RULE_LIST.indexOf(rule);
    RULE_OF_SLOT[slot] = index;
  }
  return index === NO_RULE ? undefined : RULE_LIST[index - 2];
}

function shown(code: string): string {
  return /^[A-Z0-9]{1,3}$/.test(code) ? code : '(not a code)';
}

function elementName(id: string, n: number): string {
  return `${id}${n < 10 ? '0' : ''}${n}`;
}

function invalid(t: X12Tokens, log: IssueLog, i: number, id: string, n: number, code: string): void {
  log.add(warning('X12_INVALID_CODE', `${elementName(id, n)} is ${shown(code)}.`, t.position(i), id));
}

function missing(t: X12Tokens, log: IssueLog, i: number, id: string, element: string, why = ''): void {
  log.add(warning('X12_MISSING_ELEMENT', `${element} is empty${why}.`, t.position(i), id));
}

// Plain loops and module-level functions: this runs over every segment of every answer.
export function validate271(
  t: X12Tokens,
  span: TransactionSpan,
  tree: Transaction271Tree,
  log: IssueLog,
): void {
  if (span.version.startsWith('005') && t.isBlank(span.start, 3)) missing(t, log, span.start, 'ST', 'ST03');
  for (let i = span.start + 1; i < span.end; i++) {
    const slot = t.segmentSlot(i);
    // Slot 0: an id that is not a 2–3 character code, which no rule names.
    const rule = slot === 0 ? undefined : ruleOfSlot(t, i, slot);
    if (rule !== undefined && !clean(t, i, rule)) report(t, i, rule.id, rule, log);
  }
  for (const party of tree.parties) checkHl04(t, party, log);
}

/** The fast path: true when the segment breaks none of the rules (most do not). */
function clean(t: X12Tokens, i: number, rule: SegmentRule): boolean {
  const count = t.elementCount(i);
  if (count > rule.last) return false;
  const required = rule.requiredOnly;
  for (let k = 0; k < required.length; k++) if (t.isBlank(i, required[k]!)) return false;
  // An element both required and in a list is read once: its code key is -1 when it is blank.
  const elements = rule.listElements;
  for (let k = 0; k < elements.length; k++) {
    const key = t.codeKey(i, elements[k]!);
    if (key === -1 ? rule.listRequired[k]! : !rule.lists[k]!.acceptsKey(t, i, elements[k]!, key))
      return false;
  }
  return rule.id !== 'AAA' || t.isBlank(i, 2);
}

/** The slow path: says what is wrong with a segment the fast path refused. */
function report(t: X12Tokens, i: number, id: string, rule: SegmentRule, log: IssueLog): void {
  if (t.elementCount(i) > rule.last) extraElements(t, i, id, rule.last, log);
  for (const n of rule.required) if (t.isBlank(i, n)) missing(t, log, i, id, elementName(id, n));
  for (let k = 0; k < rule.listElements.length; k++) {
    const n = rule.listElements[k]!;
    const code = t.code(i, n);
    if (code !== '' && !rule.lists[k]!.has(code)) invalid(t, log, i, id, n, code);
  }
  // AAA02 is not used in the 271.
  if (id === 'AAA' && !t.isBlank(i, 2))
    log.add(warning('X12_EXTRA_ELEMENT', 'AAA02 is not used.', t.position(i), id));
}

/** HL04 against the loops the tree placed under this HL (by HL02, or by level when HL02 dangles). */
function checkHl04(t: X12Tokens, party: PartyLoop, log: IssueLog): void {
  const hl = party.segments[0];
  if (hl === undefined || t.segmentId(hl) !== 'HL') return;
  const hl04 = t.codeKey(hl, 4);
  if (hl04 !== ZERO && hl04 !== ONE) return;
  let children = 0;
  for (const c of party.children) if ('level' in c) children++;
  if (hl04 === ONE && children === 0)
    log.add(warning('X12_HL04_MISMATCH', 'HL04 is 1; no child HL follows.', t.position(hl), 'HL'));
  else if (hl04 === ZERO && children > 0)
    log.add(
      warning(
        'X12_HL04_MISMATCH',
        `HL04 is 0; ${children} child HL${children === 1 ? ' follows' : 's follow'}.`,
        t.position(hl),
        'HL',
      ),
    );
}

const AUTHORIZATION = new Set(Object.keys(EB11_AUTHORIZATION_INDICATORS));
const AMOUNT_ROWS = new Set(['B', 'C', 'G']);

/** EB11 is one of its codes (readBenefit flags a row whose EB11 is not). */
export function isAuthorizationIndicator(code: string): boolean {
  return AUTHORIZATION.has(code);
}

/**
 * An EB row's amount elements break a rule of checkBenefitRow: EB*B/C/G without EB07 or EB*A without EB08
 * and no quantity (EB09 + EB10) standing in, or EB09 and EB10 not sent together. The `has…` say whether
 * EB07, EB08, EB09 and EB10 were sent.
 */
export function amountsIncomplete(
  code: string,
  hasAmount: boolean,
  hasPercent: boolean,
  hasQualifier: boolean,
  hasQuantity: boolean,
): boolean {
  if (hasQualifier !== hasQuantity) return true;
  if (hasQualifier) return false;
  return (!hasAmount && AMOUNT_ROWS.has(code)) || (!hasPercent && code === 'A');
}

/**
 * The patient's EB rows that may break a rule, collected by readBenefit while it reads them: a code it
 * found no name for (or no EB01), an EB11 outside its list, an EB13 qualifier without a name, or
 * `amountsIncomplete`. Most rows break none, and reading a finished BenefitsInformation object again (a
 * dozen property reads over objects of many shapes) cost more than the checks themselves; only the flagged
 * rows are read again, by checkBenefitRow, which says what is wrong. `report` runs after every row is
 * read, so the warnings come in the order they always had.
 */
export class SuspectBenefitRows {
  /** Made on the first flagged row: most transactions have none. */
  private positions: number[] | undefined;
  private rows: BenefitsInformation[] | undefined;

  /** `i` is the row's EB segment. */
  add(i: number, row: BenefitsInformation): void {
    if (this.rows === undefined || this.positions === undefined) {
      this.rows = [row];
      this.positions = [i];
    } else {
      this.rows.push(row);
      this.positions.push(i);
    }
  }

  report(t: X12Tokens, log: IssueLog): void {
    const { rows, positions } = this;
    if (rows === undefined || positions === undefined) return;
    for (let k = 0; k < rows.length; k++) checkBenefitRow(t, positions[k]!, rows[k]!, log);
  }
}

/**
 * One of the patient's EB rows, from what readBenefit made of it (EB segment `i`, realigned when the EB was
 * shifted): a code without its name is not in its list; an EB*B/C/G without an amount or an EB*A without a
 * percent says nothing unless a quantity (EB09 + EB10) stands in (Medicare's blood deductible is
 * `EB*C…DB*3`); EB09 and EB10 come together (syntax rule P0910).
 */
export function checkBenefitRow(t: X12Tokens, i: number, b: BenefitsInformation, log: IssueLog): void {
  if (!b.code) missing(t, log, i, 'EB', 'EB01');
  else if (b.name === undefined) invalid(t, log, i, 'EB', 1, b.code);
  if (b.coverageLevelCode && b.coverageLevel === undefined) invalid(t, log, i, 'EB', 2, b.coverageLevelCode);
  const services = b.serviceTypeCodes;
  if (services)
    for (let s = 0; s < services.length; s++)
      if (b.serviceTypes![s] === services[s]) invalid(t, log, i, 'EB', 3, services[s]!);
  if (b.insuranceTypeCode && b.insuranceType === undefined) invalid(t, log, i, 'EB', 4, b.insuranceTypeCode);
  if (b.timeQualifierCode && b.timeQualifier === undefined) invalid(t, log, i, 'EB', 6, b.timeQualifierCode);
  if (b.quantityQualifierCode && b.quantityQualifier === undefined)
    invalid(t, log, i, 'EB', 9, b.quantityQualifierCode);
  if (b.authOrCertIndicator && !AUTHORIZATION.has(b.authOrCertIndicator))
    invalid(t, log, i, 'EB', 11, b.authOrCertIndicator);
  if (b.inPlanNetworkIndicatorCode && b.inPlanNetworkIndicator === undefined)
    invalid(t, log, i, 'EB', 12, b.inPlanNetworkIndicatorCode);
  const procedure = b.compositeMedicalProcedureIdentifier;
  if (procedure && procedure.productOrServiceIdQualifier === undefined)
    invalid(t, log, i, 'EB', 13, procedure.productOrServiceIdQualifierCode ?? '');
  const hasQualifier = b.quantityQualifierCode !== undefined;
  const hasQuantity = b.benefitQuantity !== undefined;
  if (!hasQualifier || !hasQuantity) {
    if (AMOUNT_ROWS.has(b.code ?? '') && b.benefitAmount === undefined)
      missing(t, log, i, 'EB', 'EB07', ` on an EB*${b.code} row without a quantity`);
    if (b.code === 'A' && b.benefitPercent === undefined)
      missing(t, log, i, 'EB', 'EB08', ' on an EB*A row without a quantity');
  }
  if (hasQualifier && !hasQuantity) missing(t, log, i, 'EB', 'EB10', ' while EB09 is sent');
  if (hasQuantity && !hasQualifier) missing(t, log, i, 'EB', 'EB09', ' while EB10 is sent');
}

/** Elements sent past the segment's last one (trailing empty ones are not counted). */
function extraElements(t: X12Tokens, i: number, id: string, last: number, log: IssueLog): void {
  let sent = t.elementCount(i);
  while (sent > last && t.isBlank(i, sent)) sent--;
  if (sent > last)
    log.add(
      warning('X12_EXTRA_ELEMENT', `${id} has ${sent} elements; it has at most ${last}.`, t.position(i), id),
    );
}
