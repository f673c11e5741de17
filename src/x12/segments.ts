/**
 * Convenience reader: the whole interchange as an array of segments with their elements as strings.
 * Fine for small inputs (a 270 in the sandbox, tests); the 271 parser uses the offset tokenizer directly.
 */

import { findIsa, readIsa } from './isa.ts';
import { error } from './issues.ts';
import { tokenize } from './tokenizer.ts';
import { type Delimiters, X12Error } from './types.ts';

export interface Segment {
  id: string;
  /** elements[0] is the segment id; elements[n] is element n (1-based, as in the guides). */
  elements: string[];
  position: number;
}

/** The delimiters of the first ISA; throws X12Error when there is no readable ISA. */
export function readDelimiters(text: string): Delimiters {
  const at = findIsa(text);
  if (at < 0) throw new X12Error('Not an X12 interchange: no ISA segment', [error('X12_NO_ISA')]);
  return readIsa(text, at).delimiters;
}

export function readSegments(text: string): { delimiters: Delimiters; segments: Segment[] } {
  const tokens = tokenize(text);
  const segments: Segment[] = [];
  for (let i = 0; i < tokens.segmentCount; i++) {
    segments.push({ id: tokens.segmentId(i), elements: tokens.elements(i), position: tokens.position(i) });
  }
  return { delimiters: tokens.delimiters, segments };
}
