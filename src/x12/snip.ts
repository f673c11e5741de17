/**
 * Structural validation of one 271 transaction, SNIP levels 1 and 2, as warnings that never fail a usable
 * answer: element values against the code lists of codes.ts (X12_INVALID_CODE), required elements that are
 * empty (X12_MISSING_ELEMENT), elements past a segment's last one or in a not-used place
 * (X12_EXTRA_ELEMENT), and HL04 announcing children that never come (X12_HL04_MISMATCH). The envelope's
 * own oddities are found where the envelope is read (isa.ts, envelope.ts). Messages quote codes only: a
 * value is shown when it is code-shaped (1–3 letters or digits), never otherwise.
 *
 * It concerns every segment of every answer, so each segment is first checked on the fast path (code keys
 * and bit tests, no strings made: snip-rules.ts), by the tree builder during its one walk over the
 * transaction; only a segment that fails it is read again here to say what is wrong. The
 * patient's EB rows are checked from the BenefitsInformation objects the reader built from them
 * (checkBenefitRow): an unknown code is one the reader found no name for, so nothing is read twice, and
 * the reader flags the rows worth checking (SuspectBenefitRows). EB rows of other people in the answer,
 * which reach no result, are not checked.
 */

import type { BenefitsInformation } from '../contract/check-response.ts';
import { EB11_AUTHORIZATION_INDICATORS } from './codes.ts';
import type { TransactionSpan } from './envelope.ts';
import { type IssueLog, warning } from './issues.ts';
import type { PartyLoop, Transaction271Tree } from './loops.ts';
import { ruleOf, type SegmentRule } from './snip-rules.ts';
import { codeKeyOf, type X12Tokens } from './tokenizer.ts';

const ZERO = codeKeyOf('0');
const ONE = codeKeyOf('1');

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

/**
 * The warnings of one transaction, in segment order: ST03, then each segment the tree builder found to break
 * a rule (`tree.breaking`, from snip-rules.ts `breaksRules` during its walk), then HL04 loop by loop.
 */
export function validate271(
  t: X12Tokens,
  span: TransactionSpan,
  tree: Transaction271Tree,
  log: IssueLog,
): void {
  if (span.version.startsWith('005') && t.isBlank(span.start, 3)) missing(t, log, span.start, 'ST', 'ST03');
  for (const i of tree.breaking) {
    const id = t.segmentId(i);
    report(t, i, id, ruleOf(id, t.segmentSlot(i))!, log);
  }
  for (const party of tree.parties) checkHl04(t, party, log);
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
  if (rule.unusedSecond && !t.isBlank(i, 2))
    log.add(warning('X12_EXTRA_ELEMENT', 'AAA02 is not used.', t.position(i), id));
}

/** HL04 against the loops the tree placed under this HL (by HL02, or by level when HL02 dangles). */
function checkHl04(t: X12Tokens, party: PartyLoop, log: IssueLog): void {
  const hl = party.segments[0];
  if (hl === undefined || t.segmentId(hl) !== 'HL') return;
  const hl04 = t.codeKey(hl, 4);
  if (hl04 !== ZERO && hl04 !== ONE) return;
  const children = party.childLoops;
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
