/**
 * Reads the delimiters from an ISA segment. Only ISA01–ISA03 are trusted to sit at fixed offsets: the
 * element separator is the character after `ISA`, the component separator is the character after the
 * 16th element separator, and the segment terminator the one after that. Real files collapse or pad the
 * fixed-width fields, so a width other than 106 is a warning, not a failure.
 */

import { error, warning } from './issues.ts';
import { type Delimiters, X12Error, type X12Issue } from './types.ts';

export interface IsaInfo {
  /** Offset of the `I` of `ISA`. */
  start: number;
  /** Offset of the segment terminator that ends the ISA. */
  terminatorAt: number;
  delimiters: Delimiters;
  issues: X12Issue[];
}

const ISA_WIDTH = 106;
/** A usable ISA is at most this long even with padded fields; bounds the search on garbage input. */
const ISA_MAX_SCAN = 400;
const CR = 13;
const LF = 10;

export const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const unusable = (c: number) => Number.isNaN(c) || isAlnum(c) || c === 32 || c === 9;

/**
 * Offset of the first `ISA` followed by a usable element separator, or -1. Lower-case `isa` counts only
 * at `from` itself (a whole lower-cased file), so that prose containing the letters is not taken for X12.
 */
export function findIsa(text: string, from = 0): number {
  const usable = (i: number) => {
    const next = text.charCodeAt(i + 3);
    return !unusable(next) && next !== CR && next !== LF;
  };
  if (text.startsWith('isa', from) && usable(from)) return from;
  for (let i = text.indexOf('ISA', from); i >= 0; i = text.indexOf('ISA', i + 1)) {
    if (usable(i)) return i;
  }
  return -1;
}

/** Reads the ISA at `start` (found with findIsa); throws X12Error when its delimiters cannot be read. */
export function readIsa(text: string, start: number, position = 1): IsaInfo {
  const bad = (detail: string): never => {
    throw new X12Error('The ISA segment is malformed', [error('X12_BAD_ISA', detail, position, 'ISA')]);
  };
  const elementCode = text.charCodeAt(start + 3);
  if (unusable(elementCode) || elementCode === CR || elementCode === LF)
    bad('The character after ISA is not a separator.');
  const element = text[start + 3]!;
  const separators: number[] = [];
  const limit = Math.min(text.length, start + ISA_MAX_SCAN);
  for (let i = start + 3; i < limit && separators.length < 16; i++) {
    if (text.charCodeAt(i) === elementCode) separators.push(i);
  }
  if (separators.length < 16) bad(`Found ${separators.length} of its 16 element separators.`);
  const last = separators[15]!;
  const componentCode = text.charCodeAt(last + 1);
  if (
    unusable(componentCode) ||
    componentCode === elementCode ||
    componentCode === CR ||
    componentCode === LF
  )
    bad('ISA16 (component separator) is missing or not a separator character.');
  let terminatorAt = last + 2;
  // Padding after ISA16 (seen before a newline terminator) is skipped.
  while (text.charCodeAt(terminatorAt) === 32 || text.charCodeAt(terminatorAt) === 9) terminatorAt++;
  let terminatorCode = text.charCodeAt(terminatorAt);
  if (Number.isNaN(terminatorCode)) bad('The input ends before the ISA segment terminator.');
  // CRLF as terminator: the LF ends segments and the CR is trailing whitespace.
  if (terminatorCode === CR && text.charCodeAt(terminatorAt + 1) === LF) {
    terminatorAt++;
    terminatorCode = LF;
  }
  if (unusable(terminatorCode) || terminatorCode === elementCode || terminatorCode === componentCode)
    bad('The character after ISA16 is not a segment terminator.');

  const issues: X12Issue[] = [];
  const width = terminatorAt + 1 - start;
  if (width !== ISA_WIDTH) {
    const how = width > ISA_WIDTH ? 'padded' : 'collapsed';
    issues.push(warning('X12_ISA_WIDTH', `It is ${width} characters wide (${how}).`, position, 'ISA'));
  }
  const isa11 = text.slice(separators[10]! + 1, separators[11]!).trim();
  const isa11Code = isa11.charCodeAt(0);
  let repetition: string | null = null;
  const sameAsComponent = isa11.length === 1 && isa11Code === componentCode;
  const sameAsOther = isa11.length === 1 && (isa11Code === elementCode || isa11Code === terminatorCode);
  if (sameAsComponent)
    // Still used: EB03 splits on it as repetitions, EB13 on it as components.
    issues.push(
      warning(
        'X12_ISA11_DELIMITER',
        'ISA16, the component separator; EB03 and EB13 both split on it.',
        position,
        'ISA',
      ),
    );
  if (sameAsOther)
    issues.push(
      warning('X12_ISA11_DELIMITER', 'a separator or the terminator; EB03 is not split.', position, 'ISA'),
    );
  if (isa11.length === 1 && !unusable(isa11Code) && !sameAsOther) {
    repetition = isa11;
  } else if (!sameAsOther && isa11.toUpperCase() !== 'U') {
    issues.push(warning('X12_ISA_REPETITION', 'EB03 will not be split.', position, 'ISA'));
  }
  return {
    start,
    terminatorAt,
    delimiters: {
      element,
      component: text[last + 1]!,
      repetition,
      segment: String.fromCharCode(terminatorCode),
    },
    issues,
  };
}
