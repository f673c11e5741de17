/**
 * X12 271 → Eligibility271 (the spec's result fields about the patient), for 005010X279A1 and
 * 004010X092A1. Pure: text in, data out. Input that cannot be read as X12 throws X12Error with typed
 * issues; everything else (wrong counts, messy loops, stray segments) is recovered and reported as issues
 * with segment positions. A 999 or TA1 instead of a 271 comes back as `{ kind: 'rejected' }`.
 *
 * parse271 reads one transaction (the one whose TRN matches `traceNumber`, else the first 271);
 * parse271All (or parse271Each, one at a time) reads every 271 of a batch; parse271Tree gives the loop trees for `elig x12 parse --raw`.
 */

import { read999, readTa1 } from './acknowledgments.ts';
import { readEligibility } from './eligibility.ts';
import { type Envelope, readEnvelope, type TransactionSpan } from './envelope.ts';
import { CLIENT_WARNING_CODES, error, IssueLog } from './issues.ts';
import { buildTree, type PartyLoop, type X12Loop } from './loops.ts';
import { withoutSubscribers } from './redact.ts';
import { validate271 } from './snip.ts';
import { chooseSubscriber, type InquiredPerson } from './subscriber-choice.ts';
import { tokenize, type X12Tokens } from './tokenizer.ts';
import {
  type Delimiters,
  type Eligibility271,
  type InquiryRejected,
  type Parsed271Outcome,
  X12Error,
  type X12Issue,
} from './types.ts';

export interface Parse271Options {
  /** The inquiry's trace number (270 TRN02): picks the matching transaction and subscriber. */
  traceNumber?: string;
  /** The inquiry's subscriber: picks among several 2000C loops when none echoes the trace. */
  subscriber?: InquiredPerson;
}

/** Larger inputs are refused before any work (a 271 for one patient is a few kilobytes). */
const MAX_INPUT_CHARS = 256 * 1024 * 1024;

export function parse271(text: string, options: Parse271Options = {}): Parsed271Outcome {
  return guarded(() => {
    const { tokens, log, envelope } = read(text);
    const responses = envelope.transactions.filter((tx) => tx.type === '271');
    if (!responses.length) return rejectedOrThrow(tokens, envelope, log);
    const chosen = pickTransaction(tokens, responses, options.traceNumber);
    const tree = buildTree(tokens, chosen, log);
    validate271(tokens, chosen, tree, log);
    const choice = chooseSubscriber(tokens, tree, log, options.traceNumber, options.subscriber);
    const result = finish(readEligibility(tokens, tree, choice, log), log);
    if (choice.ignored.length) result.clientX12 = withoutSubscribers(tokens, chosen, tree, choice.ignored);
    return { kind: '271', result };
  });
}

/** Every 271 transaction of the interchange (a batch answers many inquiries), in order. */
export function parse271All(text: string): Parsed271Outcome[] {
  return [...parse271Each(text)];
}

/**
 * The 271 transactions of a batch one at a time: each result can be used and dropped before the next is
 * built, so a large batch never holds every result in memory at once.
 */
export function* parse271Each(text: string): Generator<Parsed271Outcome, void, undefined> {
  const { tokens, log, envelope } = guarded(() => read(text));
  const responses = envelope.transactions.filter((tx) => tx.type === '271');
  if (!responses.length) {
    yield guarded(() => rejectedOrThrow(tokens, envelope, log));
    return;
  }
  const shared = log.finish();
  // The interchange's issues open every transaction's list: their warnings are worded once, not per answer.
  const sharedWarnings = clientWarnings(shared, 0, []);
  for (const span of responses) {
    yield guarded(() => {
      const own = new IssueLog();
      own.addAll(shared);
      const tree = buildTree(tokens, span, own);
      validate271(tokens, span, tree, own);
      const body = readEligibility(tokens, tree, chooseSubscriber(tokens, tree, own), own);
      return { kind: '271' as const, result: finish(body, own, shared, sharedWarnings) };
    });
  }
}

/** A segment as `--raw` shows it. */
export interface RawSegment {
  position: number;
  id: string;
  elements: string[];
}

export interface RawLoop {
  loop: string;
  segments: RawSegment[];
  ignored?: RawSegment[];
  children: RawLoop[];
}

export interface Raw271 {
  delimiters: Delimiters;
  transactions: { type: string; controlNumber: string; version: string; loops: RawLoop[] }[];
  issues: X12Issue[];
}

/** The loop tree of every 271 in the interchange, with segments as strings (for `--raw` and debugging). */
export function parse271Tree(text: string): Raw271 {
  return guarded(() => {
    const { tokens, log, envelope } = read(text);
    const transactions = envelope.transactions
      .filter((tx) => tx.type === '271')
      .map((span) => {
        const tree = buildTree(tokens, span, log);
        const roots = tree.parties.filter((p) => !p.parent);
        return {
          type: span.type,
          controlNumber: span.controlNumber,
          version: span.version,
          loops: [rawLoop(tokens, tree.header), ...roots.map((p) => rawLoop(tokens, p))],
        };
      });
    if (!transactions.length) rejectedOrThrow(tokens, envelope, log);
    return { delimiters: tokens.delimiters, transactions, issues: log.finish() };
  });
}

function read(text: string): { tokens: X12Tokens; log: IssueLog; envelope: Envelope } {
  if (typeof text !== 'string')
    throw new X12Error('The input is not text', [error('X12_EMPTY', 'Not a string.')]);
  if (text.length > MAX_INPUT_CHARS)
    throw new X12Error('The input is too large', [
      error('X12_TOO_LARGE', `Limit ${MAX_INPUT_CHARS} characters.`),
    ]);
  const tokens = tokenize(text);
  const log = new IssueLog();
  log.addAll(tokens.issues);
  return { tokens, log, envelope: readEnvelope(tokens, log) };
}

/** Only X12Error leaves the parser: anything else is a bug, reported without the input's content. */
function guarded<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof X12Error) throw err;
    const kind = err instanceof RangeError ? 'resource limit' : 'internal error';
    throw new X12Error(`The 271 could not be parsed (${kind})`, [error('X12_INTERNAL', `${kind}.`)]);
  }
}

function pickTransaction(t: X12Tokens, responses: TransactionSpan[], traceNumber?: string): TransactionSpan {
  if (traceNumber !== undefined) {
    for (const span of responses) {
      for (let i = span.start + 1; i < span.end; i++) {
        if (t.segmentId(i) === 'TRN' && t.value(i, 2) === traceNumber) return span;
      }
    }
  }
  return responses[0]!;
}

function rejectedOrThrow(t: X12Tokens, envelope: Envelope, log: IssueLog): Parsed271Outcome {
  const ta1 = envelope.ta1.find((i) => t.upperValue(i, 4) !== 'A');
  const ack = envelope.transactions.find((tx) => tx.type === '999');
  let rejection: InquiryRejected | undefined;
  if (ack) rejection = read999(t, ack);
  else if (ta1 !== undefined) rejection = readTa1(t, ta1);
  if (rejection) return { kind: 'rejected', rejection, issues: log.finish() };
  const found = [...new Set(envelope.transactions.map((tx) => tx.type))].filter((x) => /^\d{3}$/.test(x));
  log.add(error('X12_NO_271', `Found ${found.length ? found.join(', ') : 'no transaction'}.`));
  throw new X12Error('No 271 transaction in the interchange', log.finish());
}

/**
 * `shared` (with `sharedWarnings`, its client warnings) are issues the log was opened with: when the log's
 * list still begins with them, their warnings are copied instead of worded again.
 */
function finish(
  body: Omit<Eligibility271, 'warnings' | 'issues'>,
  log: IssueLog,
  shared: readonly X12Issue[] = [],
  sharedWarnings: Eligibility271['warnings'] = [],
): Eligibility271 {
  const issues = log.finish();
  let from = 0;
  const warnings: Eligibility271['warnings'] = [];
  if (startsWith(issues, shared)) {
    from = shared.length;
    for (const w of sharedWarnings) warnings.push({ code: w.code, description: w.description });
  }
  clientWarnings(issues, from, warnings);
  // Two properties added to the body instead of a spread copy: this runs once per transaction of a batch.
  const result = body as Eligibility271;
  result.warnings = warnings;
  result.issues = issues;
  return result;
}

function startsWith(issues: readonly X12Issue[], head: readonly X12Issue[]): boolean {
  if (head.length === 0 || issues.length < head.length) return false;
  for (let k = 0; k < head.length; k++) if (issues[k] !== head[k]) return false;
  return true;
}

/** The warnings the client hears of among issues[from…], appended to `into`. */
function clientWarnings(
  issues: readonly X12Issue[],
  from: number,
  into: Eligibility271['warnings'],
): Eligibility271['warnings'] {
  for (let k = from; k < issues.length; k++) {
    const i = issues[k]!;
    if (!CLIENT_WARNING_CODES.has(i.code)) continue;
    // A truncated file is an error issue; the client still hears of it.
    const where = i.severity === 'warning' && i.position ? ` (segment ${i.position})` : '';
    into.push({ code: i.code, description: `${i.message}${where}` });
  }
  return into;
}

function rawLoop(t: X12Tokens, loop: X12Loop | PartyLoop): RawLoop {
  const seg = (i: number): RawSegment => ({
    position: t.position(i),
    id: t.segmentId(i),
    elements: t.elements(i).slice(1),
  });
  const out: RawLoop = {
    loop: loop.id,
    segments: loop.segments.map(seg),
    children: loop.children.map((c) => rawLoop(t, c)),
  };
  if (loop.ignored.length) out.ignored = loop.ignored.map(seg);
  return out;
}
