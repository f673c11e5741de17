/**
 * The stable codes of every X12Issue and parser warning (docs/x12.md explains each). Codes are prefixed
 * `X12_` so they never collide with the benefit interpreter's warning codes. Messages built here name the
 * problem, the segment id and its position, never an element value (values may be PHI).
 */
import type { X12Issue } from './types.ts';

export const X12_ISSUE_CODES = {
  // Unreadable input (X12Error)
  X12_EMPTY: 'The input is empty or only whitespace.',
  X12_NO_ISA: 'No ISA segment: the input is not an X12 interchange.',
  X12_BAD_ISA: 'The ISA segment is malformed: its delimiters cannot be read.',
  X12_NO_271: 'The interchange holds no 271, 999 or TA1 transaction.',
  X12_TOO_LARGE: 'The input is larger than the parser accepts.',
  X12_INTERNAL: 'The parser failed on this input; nothing was read.',
  // Interchange and envelope
  X12_ISA_WIDTH: 'The ISA is not 106 characters wide (fixed-width fields collapsed or padded).',
  X12_ISA_REPETITION: 'ISA11 is neither U nor a usable repetition separator.',
  X12_LEADING_GARBAGE: 'Characters before the ISA segment were ignored.',
  X12_DELIMITERS_CHANGED: 'A later ISA in the same input uses other delimiters; read with those.',
  X12_MISSING_TERMINATOR: 'A segment ran into the next line without its terminator; split at the line break.',
  X12_CONTROL_CHARACTER: 'A segment holds a line feed or other control character inside its elements.',
  X12_REPLACEMENT_CHARACTER:
    'The answer holds U+FFFD replacement characters: some bytes could not be read in its character set.',
  X12_BAD_SEGMENT_ID: 'A segment id is not 2-3 letters or digits; the segment was ignored.',
  X12_SE01_MISMATCH: 'SE01 does not match the number of segments in the transaction.',
  X12_GE01_MISMATCH: 'GE01 does not match the number of transactions in the group.',
  X12_IEA01_MISMATCH: 'IEA01 does not match the number of groups in the interchange.',
  X12_ST_SE_CONTROL_MISMATCH: 'SE02 does not match ST02.',
  X12_GS_GE_CONTROL_MISMATCH: 'GE02 does not match GS06.',
  X12_ISA_IEA_CONTROL_MISMATCH: 'IEA02 does not match ISA13.',
  X12_MISSING_SE: 'A transaction ended without SE (another envelope segment followed).',
  X12_MISSING_GE: 'A functional group has no GE trailer.',
  X12_MISSING_IEA: 'The interchange has no IEA trailer.',
  X12_TRUNCATED: 'The input ends inside a transaction: it is truncated.',
  X12_OUTSIDE_TRANSACTION: 'A segment outside any transaction was ignored.',
  X12_VERSION_MISMATCH: 'ISA12 and GS08/ST03 name different X12 versions.',
  // 271 structure
  X12_NO_HL: 'The 271 has no HL hierarchy; loops were inferred from NM1 entity codes.',
  X12_HL_EMPTY_ID: 'An HL segment has an empty HL01.',
  X12_HL_LEVEL_INFERRED: 'An HL has no usable HL03 level; inferred from the NM1 that follows.',
  X12_HL_PARENT: 'An HL02 parent is missing or inconsistent; the loop was placed by its level.',
  X12_UNEXPECTED_SEGMENT: 'A segment the guide does not allow in this loop was ignored.',
  X12_AAA_OUTSIDE_LOOP: 'An AAA segment before the first HL was read as a transaction-level rejection.',
  X12_EB_OUTSIDE_PATIENT: 'An EB outside a subscriber or dependent loop was ignored.',
  X12_EB_SHIFTED: 'EB elements sat one place off; read at their intended positions.',
  X12_LE_WITHOUT_LS: 'An LE segment closed no LS loop.',
  X12_LS_NOT_CLOSED: 'An LS loop was not closed by LE.',
  X12_MULTIPLE_SUBSCRIBERS:
    'More than one subscriber loop; the one matching the trace number (or the first) was used.',
  X12_NO_SUBSCRIBER: 'The 271 has no subscriber loop.',
  X12_SUBSCRIBER_WITHOUT_NAME: 'The subscriber loop (2000C) has no 2100C NM1: the subscriber is not named.',
  X12_DEPENDENT_ENTITY: 'A dependent name (2100D NM1) does not have entity code 03.',
  X12_SUBSCRIBER_EMPTY: 'The subscriber loop has neither benefit rows nor an AAA saying why.',
  X12_BENEFITS_ON_DEPENDENT:
    "Benefits were only on a dependent; they are reported as the patient's benefits.",
  X12_BENEFITS_ON_SEVERAL_DEPENDENTS:
    'Several dependents carry benefits and the subscriber none; none was chosen.',
  X12_CONFLICTING_PLAN_STATUS: 'The 271 reports the plan both active and inactive.',
  X12_BENEFIT_AAA: 'The payer flagged a benefit line with an AAA rejection.',
  // Structural validation (SNIP levels 1 and 2): reported, never failing a usable answer
  X12_INVALID_CODE: "An element's value is not in its code list:",
  X12_MISSING_ELEMENT: 'A required element is missing:',
  X12_EXTRA_ELEMENT: 'A segment carries an element it does not have:',
  X12_HL04_MISMATCH: 'HL04 (hierarchical child code) disagrees with the HL segments that follow:',
  X12_GS01_NOT_HB: 'The functional group holding the 271 is not an HB group:',
  X12_ISA11_DELIMITER: 'ISA11 (the repetition separator) equals another delimiter:',
} as const;

export type X12IssueCode = keyof typeof X12_ISSUE_CODES;

/**
 * Issue codes that go to the client's `warnings` (they change how the data should be read). Envelope
 * bookkeeping (counts, control numbers) stays in `issues` only.
 */
export const CLIENT_WARNING_CODES: ReadonlySet<string> = new Set<X12IssueCode>([
  'X12_MISSING_TERMINATOR',
  'X12_BAD_SEGMENT_ID',
  'X12_CONTROL_CHARACTER',
  'X12_REPLACEMENT_CHARACTER',
  'X12_NO_HL',
  'X12_HL_EMPTY_ID',
  'X12_HL_LEVEL_INFERRED',
  'X12_HL_PARENT',
  'X12_UNEXPECTED_SEGMENT',
  'X12_AAA_OUTSIDE_LOOP',
  'X12_EB_OUTSIDE_PATIENT',
  'X12_EB_SHIFTED',
  'X12_MULTIPLE_SUBSCRIBERS',
  'X12_NO_SUBSCRIBER',
  'X12_SUBSCRIBER_WITHOUT_NAME',
  'X12_DEPENDENT_ENTITY',
  'X12_SUBSCRIBER_EMPTY',
  'X12_BENEFITS_ON_DEPENDENT',
  'X12_BENEFITS_ON_SEVERAL_DEPENDENTS',
  'X12_CONFLICTING_PLAN_STATUS',
  'X12_BENEFIT_AAA',
  'X12_TRUNCATED',
  'X12_ISA_WIDTH',
  'X12_INVALID_CODE',
  'X12_MISSING_ELEMENT',
  'X12_EXTRA_ELEMENT',
  'X12_HL04_MISMATCH',
  'X12_GS01_NOT_HB',
  'X12_ISA11_DELIMITER',
]);

export function issue(
  severity: X12Issue['severity'],
  code: X12IssueCode,
  detail?: string,
  position?: number,
  segmentId?: string,
): X12Issue {
  const message = detail ? `${X12_ISSUE_CODES[code]} ${detail}` : X12_ISSUE_CODES[code];
  const out: X12Issue = { severity, code, message };
  if (position !== undefined) out.position = position;
  if (segmentId !== undefined) out.segmentId = segmentId;
  return out;
}

export const warning = (code: X12IssueCode, detail?: string, position?: number, segmentId?: string) =>
  issue('warning', code, detail, position, segmentId);
export const error = (code: X12IssueCode, detail?: string, position?: number, segmentId?: string) =>
  issue('error', code, detail, position, segmentId);

/**
 * Collects issues with a cap per code, so that a file repeating one problem 100k times (e.g. 100k HL
 * segments with an empty HL01) yields a bounded list plus one summary issue per code.
 */
export class IssueLog {
  readonly issues: X12Issue[] = [];
  /**
   * Issues seen per code, made only once `perCode` issues are listed: before that no code can go over the
   * cap. Most transactions have an issue or two (e.g. the interchange's own, repeated into each), and a
   * Map per transaction cost more than the rest of the log.
   */
  private counts: Map<string, number> | undefined;
  constructor(private readonly perCode = 25) {}

  add(item: X12Issue): void {
    if (this.counts === undefined) {
      if (this.issues.length < this.perCode) {
        this.issues.push(item);
        return;
      }
      this.counts = new Map();
      for (const listed of this.issues) this.counts.set(listed.code, (this.counts.get(listed.code) ?? 0) + 1);
    }
    const seen = (this.counts.get(item.code) ?? 0) + 1;
    this.counts.set(item.code, seen);
    if (seen <= this.perCode) this.issues.push(item);
  }

  addAll(items: readonly X12Issue[]): void {
    for (const item of items) this.add(item);
  }

  /** The issues, with one `N more` issue for each code that went over the cap. */
  finish(): X12Issue[] {
    const out = [...this.issues];
    for (const [code, seen] of this.counts ?? []) {
      if (seen <= this.perCode) continue;
      const first = this.issues.find((i) => i.code === code)!;
      out.push({
        severity: first.severity,
        code,
        message: `${seen - this.perCode} more issues of this kind were not listed.`,
      });
    }
    return out;
  }
}
