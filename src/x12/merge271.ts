/**
 * One result from the 271s of one check asked in several inquiries (a payer asked one 270 per service type
 * code, docs/payers.md "Payer profiles: how each payer is asked"). Pure: parsed answers in, one answer out.
 *
 * Every answer is about the same patient (each echoed the check's trace), so the first answer gives the
 * parties and the plan, and later answers fill only what it left out. Benefit rows are concatenated in the
 * order the inquiries were sent, each with its own EB03 codes; a row that an earlier answer already carried
 * word for word (the plan-level rows every answer repeats) is kept once.
 */
import type { Warning } from '../contract/check-response.ts';
import type { Eligibility271 } from './types.ts';

export function merge271(answers: readonly Eligibility271[]): Eligibility271 {
  const [first, ...later] = answers;
  if (!first) throw new Error('merge271 needs at least one answer');
  if (later.length === 0) return first;
  // Each answer's text is kept whole in the result's x12 (joinInterchanges), so no clientX12 here.
  const { clientX12: _kept, ...base } = first;
  const merged: Eligibility271 = {
    ...base,
    benefitsInformation: [...first.benefitsInformation],
    subscriberTraceNumbers: [...first.subscriberTraceNumbers],
    errors: [...first.errors],
    rejections: [...first.rejections],
    warnings: [...first.warnings],
    issues: [...first.issues],
  };
  const earlierRows = new Set(first.benefitsInformation.map((row) => JSON.stringify(row)));
  const seenTraces = new Set(first.subscriberTraceNumbers.map((trn) => JSON.stringify(trn)));
  const seenWarnings = new Set(first.warnings.map(warningKey));
  for (const answer of later) {
    merged.provider ??= answer.provider;
    merged.planInformation ??= answer.planInformation;
    merged.planDateInformation ??= answer.planDateInformation;
    merged.planCoverage ??= answer.planCoverage;
    merged.providerNetwork ??= answer.providerNetwork;
    if (merged.dependents.length === 0) merged.dependents = answer.dependents;
    // Rows of one answer that repeat one another stay (as in any 271); only earlier answers' rows are dropped.
    const keys = answer.benefitsInformation.map((row) => JSON.stringify(row));
    for (const [k, row] of answer.benefitsInformation.entries()) {
      if (!earlierRows.has(keys[k]!)) merged.benefitsInformation.push(row);
    }
    for (const key of keys) earlierRows.add(key);
    pushNew(merged.subscriberTraceNumbers, answer.subscriberTraceNumbers, seenTraces, (t) =>
      JSON.stringify(t),
    );
    pushNew(merged.warnings, answer.warnings, seenWarnings, warningKey);
    merged.errors.push(...answer.errors);
    merged.rejections.push(...answer.rejections);
    merged.issues.push(...answer.issues);
  }
  merged.planActive = agreedPlanStatus(answers);
  return merged;
}

/**
 * The answers' plan status when those that state one agree; undefined when they contradict each other, so
 * the interpreter weighs the plan-level rows themselves (and reports the contradiction).
 */
function agreedPlanStatus(answers: readonly Eligibility271[]): boolean | undefined {
  let status: boolean | undefined;
  for (const { planActive } of answers) {
    if (planActive === undefined) continue;
    if (status !== undefined && status !== planActive) return undefined;
    status = planActive;
  }
  return status;
}

const warningKey = (w: Warning) => `${w.code}\u0000${w.description}`;

function pushNew<T>(into: T[], items: readonly T[], seen: Set<string>, key: (item: T) => string): void {
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    into.push(item);
  }
}

/**
 * The X12 text of several answers as one string: each interchange (ISA … IEA) after the other, separated by
 * a line break, as in any file of several interchanges; parse271All reads every 271 back. One answer is
 * returned as it is. An answer whose last segment lacks its terminator gets it, so the next ISA starts a
 * segment of its own.
 */
export function joinInterchanges(texts: readonly string[]): string {
  if (texts.length === 1) return texts[0]!;
  return texts
    .map((text) => {
      const trimmed = text.trimEnd();
      const terminator = segmentTerminator(trimmed);
      return terminator && !trimmed.endsWith(terminator) ? trimmed + terminator : trimmed;
    })
    .join('\n')
    .concat('\n');
}

/** The ISA's segment terminator: the character after its 16 elements (position 105 of a 106-wide ISA). */
function segmentTerminator(text: string): string | undefined {
  const start = text.search(/ISA/i);
  if (start < 0) return undefined;
  const element = text[start + 3];
  if (element === undefined) return undefined;
  // Count 16 element separators; the component separator (ISA16) and then the terminator follow.
  let at = start;
  for (let n = 0; n < 16; n++) {
    at = text.indexOf(element, at + 1);
    if (at < 0) return undefined;
  }
  return text[at + 2];
}
