/**
 * The built-in sandbox payer (docs/sandbox.md): a `PayerConnector` that reads the 270, matches the subscriber
 * against its member table and answers real 271 text after a simulated latency. Scenario members are slow,
 * flaky, silent or rejected.
 */

import { X12BuildError } from '../../x12/build270.ts';
import {
  type PayerCallOptions,
  type PayerConnector,
  PermanentPayerError,
  TransientPayerError,
} from '../connector.ts';
import { type ReceivedInquiry, readInquiry } from './inquiry.ts';
import { matchSubscriber } from './matching.ts';
import { type Answer271, respond271 } from './respond271.ts';

export { SANDBOX_PAYER } from './respond271.ts';

export interface SandboxOptions {
  /** Base latency of every answer: a fixed number of ms, or a uniform random range. Default 300–1500 ms. */
  latencyMs?: number | { min: number; max: number };
  /** Source of randomness (latency, control numbers, payer trace numbers); default `Math.random`. */
  random?: () => number;
  /** Clock for the 271's dates; default `new Date()`. */
  now?: () => Date;
  /** How many trace numbers the flaky member remembers (oldest forgotten first). Default 10 000. */
  flakyMemory?: number;
}

const DEFAULT_LATENCY_MS = { min: 300, max: 1500 } as const;
/** The slow member answers after this many times the base latency. */
const SLOW_FACTOR = 20;
/** The flaky member answers AAA 42 to this many calls per trace number, then answers normally. */
const FLAKY_FAILURES = 2;

function latencyRange(latency: SandboxOptions['latencyMs']): { min: number; max: number } {
  const range =
    typeof latency === 'number' ? { min: latency, max: latency } : (latency ?? DEFAULT_LATENCY_MS);
  const valid = (n: number) => Number.isFinite(n) && n >= 0;
  if (!valid(range.min) || !valid(range.max) || range.min > range.max) {
    throw new RangeError('Sandbox latency must be a non-negative number or a range with 0 <= min <= max');
  }
  return range;
}

function aborted(): TransientPayerError {
  return new TransientPayerError('Sandbox payer did not answer before the call was aborted');
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. `Infinity` waits for the abort only. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (Number.isFinite(ms)) {
      timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
    }
  });
}

/** Calls seen per trace number, bounded: when full, the least recently seen trace is forgotten. */
class AttemptCounter {
  readonly #counts = new Map<string, number>();
  constructor(private readonly capacity: number) {}
  /** Records one more call and returns its 1-based attempt number. */
  next(key: string): number {
    const n = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.delete(key);
    this.#counts.set(key, Math.min(n, FLAKY_FAILURES + 1));
    while (this.#counts.size > this.capacity) this.#counts.delete(this.#counts.keys().next().value!);
    return n;
  }
  get size(): number {
    return this.#counts.size;
  }
}

type Decision = { answer: Answer271; latencyFactor: number };

function decide(inquiry: ReceivedInquiry, attempts: AttemptCounter): Decision {
  const match = matchSubscriber(inquiry.subscriber);
  if (match.kind === 'rejected') return { answer: match, latencyFactor: 1 };
  const { member } = match;
  switch (member.scenario.kind) {
    case 'reject':
      return { answer: { kind: 'rejected', code: member.scenario.code }, latencyFactor: 1 };
    case 'silent':
      return { answer: { kind: 'eligible', member }, latencyFactor: Number.POSITIVE_INFINITY };
    case 'slow':
      return { answer: { kind: 'eligible', member }, latencyFactor: SLOW_FACTOR };
    case 'flaky': {
      const key = inquiry.trace?.number ?? inquiry.reference;
      const failing = attempts.next(key) <= FLAKY_FAILURES;
      return { answer: failing ? { kind: 'unavailable' } : { kind: 'eligible', member }, latencyFactor: 1 };
    }
    default:
      return { answer: { kind: 'eligible', member }, latencyFactor: 1 };
  }
}

export interface SandboxConnector extends PayerConnector {
  /** Trace numbers the flaky member currently remembers (for tests and metrics; never the numbers). */
  readonly rememberedTraces: number;
}

export function createSandboxConnector(options: SandboxOptions = {}): SandboxConnector {
  const range = latencyRange(options.latencyMs);
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => new Date());
  const attempts = new AttemptCounter(options.flakyMemory ?? 10_000);
  const draw = (max: number) => 1 + Math.floor(random() * max);

  return {
    name: 'sandbox',
    get rememberedTraces() {
      return attempts.size;
    },
    async send(x12_270: string, { signal }: PayerCallOptions): Promise<string> {
      if (signal.aborted) throw aborted();
      const inquiry = readInquiry(x12_270);
      const { answer, latencyFactor } = decide(inquiry, attempts);
      const base = range.min + random() * (range.max - range.min);
      // 0 × Infinity is NaN: a silent member with zero latency still never answers.
      await pause(latencyFactor === Number.POSITIVE_INFINITY ? latencyFactor : base * latencyFactor, signal);
      try {
        return respond271(inquiry, answer, {
          controlNumber: draw(999_999_999),
          now: now(),
          payerTraceNumber: `SBX${String(draw(999_999_999)).padStart(9, '0')}`,
        });
      } catch (err) {
        if (err instanceof X12BuildError) {
          throw new PermanentPayerError(`Sandbox payer cannot echo a 270 value into its 271 (${err.field})`);
        }
        throw err;
      }
    },
  };
}
