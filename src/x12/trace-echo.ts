/**
 * Does this 271 answer our inquiry? The 270 carries our trace in 2000C TRN02 and in BHT03; a payer echoes
 * the TRN as `TRN*2` in the subscriber (or dependent) loop. parse271 picks the transaction and subscriber
 * that echo it, but falls back to the first ones when none does, so that a file can still be read: for a
 * check that fallback would attach another patient's answer. Pure: the parsed result (and, when it has no
 * subscriber trace at all, the text's BHT03s) in, a verdict out.
 */

import { tokenize } from './tokenizer.ts';
import type { Eligibility271 } from './types.ts';

export function echoesTrace(result: Eligibility271, x12: string, traceNumber: string): boolean {
  const traces = result.subscriberTraceNumbers;
  if (traces.some((t) => t.referenceIdentification === traceNumber)) return true;
  // It echoes some other inquiry's trace: the answer belongs to that inquiry.
  if (traces.some((t) => t.traceTypeCode === '2')) return false;
  // No echo on a subscriber (a rejection at the payer or provider level has no subscriber loop): the
  // transaction's BHT03, which repeats the inquiry's, is what identifies it.
  return bhtReferences(x12).includes(traceNumber);
}

function bhtReferences(x12: string): string[] {
  const t = tokenize(x12);
  const out: string[] = [];
  for (let i = 0; i < t.segmentCount; i++) if (t.segmentId(i) === 'BHT') out.push(t.value(i, 3));
  return out;
}
