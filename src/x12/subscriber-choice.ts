/**
 * Whose answer is this? A 271 may carry several 2000C subscriber loops (a payer that found more than one
 * member for the inquiry). The answer is the loop whose TRN echoes the inquiry's trace (a 2000D that echoes
 * it makes that dependent the patient), else the one whose 2100C NM1 matches the inquiry's member id and
 * name, else the first; the others are ignored, counted in a warning, and never read.
 */
import { type IssueLog, warning } from './issues.ts';
import type { PartyLoop, Transaction271Tree } from './loops.ts';
import { nm1 } from './people.ts';
import type { X12Tokens } from './tokenizer.ts';

/** The inquiry's subscriber, as the 270 sent it (names and id compared without case). */
export interface InquiredPerson {
  memberId?: string;
  firstName?: string;
  lastName?: string;
}

export interface SubscriberChoice {
  subscriber: PartyLoop | undefined;
  /** The subscriber, or the dependent whose TRN echoes the trace. */
  patient: PartyLoop | undefined;
  /** The other 2000C loops, in document order. */
  ignored: readonly PartyLoop[];
}

/** No other subscriber loop (almost every 271): shared, so no array is made per transaction. */
const NONE: readonly PartyLoop[] = Object.freeze([]);

export function chooseSubscriber(
  t: X12Tokens,
  tree: Transaction271Tree,
  log: IssueLog,
  traceNumber?: string,
  person?: InquiredPerson,
): SubscriberChoice {
  const subscribers = tree.parties.filter((p) => p.level === 'C');
  let how = 'it echoes the trace number';
  let subscriber =
    traceNumber === undefined ? undefined : subscribers.find((p) => tracedBy(t, p, traceNumber));
  let patient = subscriber;
  if (!subscriber && traceNumber !== undefined) {
    const dependent = tree.parties.find((p) => p.level === 'D' && p.parent && tracedBy(t, p, traceNumber));
    subscriber = dependent?.parent;
    patient = dependent;
  }
  if (!subscriber && person?.memberId && subscribers.length > 1) {
    subscriber = subscribers.find((p) => matches(t, p, person));
    patient = subscriber;
    how = 'its member id and name match the inquiry';
  }
  if (!subscriber) {
    subscriber = subscribers[0];
    patient = subscriber;
    how = 'it is the first; none echoes the trace number or matches the inquiry';
  }
  const ignored = subscribers.length < 2 ? NONE : subscribers.filter((p) => p !== subscriber);
  if (ignored.length) {
    const first = ignored[0]!.segments[0];
    const loops = ignored.length === 1 ? 'loop was' : 'loops were';
    log.add(
      warning(
        'X12_MULTIPLE_SUBSCRIBERS',
        `${ignored.length} other subscriber ${loops} ignored; the one used was chosen because ${how}.`,
        first === undefined ? undefined : t.position(first),
        'HL',
      ),
    );
  }
  return { subscriber, patient, ignored };
}

function tracedBy(t: X12Tokens, p: PartyLoop, traceNumber: string): boolean {
  return p.traces.some((i) => t.value(i, 2) === traceNumber);
}

const same = (a: string, b: string | undefined) =>
  b !== undefined && a.toUpperCase() === b.trim().toUpperCase();

/** NM109 is the member id, and NM103 (NM104 when both sides have one) the name, of the inquiry. */
function matches(t: X12Tokens, p: PartyLoop, person: InquiredPerson): boolean {
  const i = nm1(t, p.name);
  if (i === undefined || !same(t.value(i, 9), person.memberId)) return false;
  const last = t.value(i, 3);
  if (last && person.lastName && !same(last, person.lastName)) return false;
  const first = t.value(i, 4);
  return !(first && person.firstName && !same(first, person.firstName));
}
