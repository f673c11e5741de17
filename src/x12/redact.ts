/**
 * The 271 text the client may see when the answer was read from one of several subscriber loops: the other
 * 2000C loops (with their 2000D, 2100, 2110 and 2120 loops) are cut out and SE01 is recounted, so no other
 * person's names, ids or amounts reach the result's `x12`. Everything else is kept byte for byte.
 */
import type { TransactionSpan } from './envelope.ts';
import type { PartyLoop, Transaction271Tree } from './loops.ts';
import type { X12Tokens } from './tokenizer.ts';

export function withoutSubscribers(
  t: X12Tokens,
  span: TransactionSpan,
  tree: Transaction271Tree,
  ignored: readonly PartyLoop[],
): string {
  const cuts: { from: number; to: number }[] = [];
  for (const s of ignored) {
    const at = tree.parties.indexOf(s);
    const from = firstIndex(s);
    if (at < 0 || from === undefined) continue;
    let to = span.end;
    for (const next of tree.parties.slice(at + 1)) {
      const start = firstIndex(next);
      if (start === undefined || within(next, s)) continue;
      to = start;
      break;
    }
    if (to > from) cuts.push({ from, to });
  }
  if (!cuts.length) return t.text;
  cuts.sort((a, b) => a.from - b.from);
  const text = t.text;
  const parts: string[] = [];
  let kept = 0;
  let removed = 0;
  for (const cut of cuts) {
    const start = t.textRange(cut.from).start;
    if (start < kept) continue;
    parts.push(text.slice(kept, start));
    kept = cut.to < t.segmentCount ? t.textRange(cut.to).start : text.length;
    removed += cut.to - cut.from;
  }
  const se = span.end < t.segmentCount && t.segmentId(span.end) === 'SE' ? span.end : undefined;
  if (se === undefined) {
    parts.push(text.slice(kept));
    return parts.join('');
  }
  // SE01 recounted for the segments left; SE's other elements as sent.
  const range = t.textRange(se);
  const elements = t.elements(se);
  elements[1] = String(se - span.start + 1 - removed);
  parts.push(text.slice(kept, range.start), elements.join(t.delimitersAt(se).element), text.slice(range.end));
  return parts.join('');
}

/** The loop's first segment: its HL, or (without HL segments) its TRN or NM1. */
function firstIndex(p: PartyLoop): number | undefined {
  const candidates = [p.segments[0], p.traces[0], p.name?.segments[0]].filter(
    (i): i is number => i !== undefined,
  );
  return candidates.length ? Math.min(...candidates) : undefined;
}

function within(p: PartyLoop, ancestor: PartyLoop): boolean {
  for (let q = p.parent; q; q = q.parent) if (q === ancestor) return true;
  return false;
}
