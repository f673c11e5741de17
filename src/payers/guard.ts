/**
 * Outbound protection per payer, in each worker process: a concurrency limit (a payer's gateway is not
 * ours to flood) and a circuit breaker (a payer that keeps failing is left alone for a while, and its
 * checks wait instead of spending their retry budget against a wall).
 *
 * Breaker states, per payer:
 * - closed: calls go through; `failureThreshold` consecutive failures open it.
 * - open: no calls for `openMs` (doubling on each re-open, up to `maxOpenMs`); checks are deferred to
 *   when it may close.
 * - half-open: after the open period one trial call goes through; success closes the breaker, failure
 *   opens it again for longer.
 * A failure is a transient outcome (timeout, connection error, "try later" AAA); any answer from the
 * payer, even a rejection of the inquiry, is a success as far as the breaker is concerned. A refused
 * credential opens the breaker at once: retrying with the same credentials cannot succeed, and hammering a
 * gateway with bad logins gets accounts locked. It stays reported (`authFailures`) until a call succeeds.
 */

export type BreakerState = 'closed' | 'open' | 'half-open';

export type PermitResult = 'success' | 'failure' | 'neutral' | 'auth-failure';

export interface PayerGuardOptions {
  /** Calls at once per payer, unless `concurrencyOf` names the payer's own limit. */
  maxConcurrent: number;
  concurrencyOf?: (payer: string) => number | undefined;
  failureThreshold: number;
  openMs: number;
  maxOpenMs: number;
  now?: () => number;
  random?: () => number;
  /** Called on every state change (metrics, logs). */
  onStateChange?: (payer: string, state: BreakerState) => void;
}

export type PayerPermit =
  | { ok: true; release(result: PermitResult): void }
  /** `auth-failed`: the breaker is open because the payer refused our credentials. */
  | { ok: false; reason: 'circuit-open' | 'auth-failed' | 'busy'; retryInMs: number };

interface PayerState {
  active: number;
  waiters: (() => void)[];
  consecutiveFailures: number;
  openUntil: number;
  opens: number;
  trialInFlight: boolean;
  state: BreakerState;
  /** When our credentials were last refused, until a call succeeds again. */
  authFailedAt?: number;
}

export class PayerGuard {
  private readonly payers = new Map<string, PayerState>();
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly opts: PayerGuardOptions) {
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  state(payer: string): BreakerState {
    return this.payers.get(payer)?.state ?? 'closed';
  }

  /** Payers whose last answer refused our credentials (for /readyz): ids and times only. */
  authFailures(): { payer: string; since: Date }[] {
    return [...this.payers]
      .filter(([, st]) => st.authFailedAt !== undefined)
      .map(([payer, st]) => ({ payer, since: new Date(st.authFailedAt!) }));
  }

  /** How long until an open breaker lets a trial call through (0 when it is not open), with jitter. */
  openForMs(payer: string): number {
    const st = this.payers.get(payer);
    if (st?.state !== 'open') return 0;
    return this.later(Math.max(0, st.openUntil - this.now()));
  }

  /**
   * A permit to call `payer`, waiting up to `waitMs` for a free slot. Without one, says when to try
   * again: after the open period (circuit open) or shortly (all slots busy).
   */
  async acquire(payer: string, waitMs: number, signal?: AbortSignal): Promise<PayerPermit> {
    const st = this.stateOf(payer);
    let trial = false;
    if (st.state === 'open') {
      const left = st.openUntil - this.now();
      if (left > 0) return { ok: false, reason: this.openReason(st), retryInMs: this.later(left) };
      this.setState(payer, st, 'half-open');
    }
    if (st.state === 'half-open') {
      if (st.trialInFlight) {
        return {
          ok: false,
          reason: this.openReason(st),
          retryInMs: this.later(Math.min(this.opts.openMs, 5_000)),
        };
      }
      st.trialInFlight = true;
      trial = true;
    }
    if (st.active < (this.opts.concurrencyOf?.(payer) ?? this.opts.maxConcurrent)) {
      st.active++;
    } else {
      if (!(await this.waitForSlot(st, waitMs, signal))) {
        if (trial) st.trialInFlight = false;
        return { ok: false, reason: 'busy', retryInMs: this.later(250) };
      }
      // The breaker may have opened while this caller waited: then it must not call after all.
      if (!trial && st.state !== 'closed') {
        this.freeSlot(st);
        const left = Math.max(st.openUntil - this.now(), Math.min(this.opts.openMs, 5_000));
        return { ok: false, reason: this.openReason(st), retryInMs: this.later(left) };
      }
    }
    let released = false;
    return {
      ok: true,
      release: (result) => {
        if (released) return;
        released = true;
        this.freeSlot(st);
        if (trial) st.trialInFlight = false;
        this.record(payer, st, result, trial);
      },
    };
  }

  private openReason(st: PayerState): 'circuit-open' | 'auth-failed' {
    return st.authFailedAt === undefined ? 'circuit-open' : 'auth-failed';
  }

  /** A waiting caller inherits the slot as is; otherwise it is freed. */
  private freeSlot(st: PayerState): void {
    const next = st.waiters.shift();
    if (next) next();
    else st.active--;
  }

  private record(payer: string, st: PayerState, result: PermitResult, trial: boolean) {
    if (result === 'neutral') return;
    if (result === 'success') {
      st.consecutiveFailures = 0;
      st.authFailedAt = undefined;
      if (st.state !== 'closed') {
        st.opens = 0;
        this.setState(payer, st, 'closed');
      }
      return;
    }
    st.consecutiveFailures++;
    const auth = result === 'auth-failure';
    if (auth) st.authFailedAt = this.now();
    const tripped =
      (trial && st.state === 'half-open') ||
      (st.state === 'closed' && (auth || st.consecutiveFailures >= this.opts.failureThreshold));
    if (tripped) {
      const period = Math.min(this.opts.openMs * 2 ** st.opens, this.opts.maxOpenMs);
      st.opens++;
      st.openUntil = this.now() + period;
      this.setState(payer, st, 'open');
    }
  }

  /** Resolves true when a releasing caller handed its slot over, false on timeout or abort. */
  private waitForSlot(st: PayerState, waitMs: number, signal?: AbortSignal): Promise<boolean> {
    if (waitMs <= 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const handOver = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(true);
      };
      const giveUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        const i = st.waiters.indexOf(handOver);
        if (i >= 0) st.waiters.splice(i, 1);
        resolve(false);
      };
      const timer = setTimeout(giveUp, waitMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      st.waiters.push(handOver);
    });
  }

  private stateOf(payer: string): PayerState {
    let st = this.payers.get(payer);
    if (!st) {
      st = {
        active: 0,
        waiters: [],
        consecutiveFailures: 0,
        openUntil: 0,
        opens: 0,
        trialInFlight: false,
        state: 'closed',
      };
      this.payers.set(payer, st);
    }
    return st;
  }

  private setState(payer: string, st: PayerState, state: BreakerState): void {
    if (st.state === state) return;
    st.state = state;
    this.opts.onStateChange?.(payer, state);
  }

  /** `ms` plus up to 20 %, so deferred checks of one payer do not all come back in the same millisecond. */
  private later(ms: number): number {
    return Math.max(1, Math.round(ms * (1 + this.random() * 0.2)));
  }
}
