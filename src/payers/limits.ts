/**
 * Account-wide limits of a connection (`limits.concurrency`, `limits.ratePerSecond`): every payer call
 * through the connection takes a slot and a token first, whichever payer it is for. A clearinghouse
 * account allows a handful of requests at once in total (Stedi documents 5); per-payer limits that add up
 * past it only earn 429s.
 *
 * Where the counts live is a `LimitStore`: in memory for one process (PGlite), in the database for many
 * (PostgreSQL: src/workers/connection-limit-store.ts over connection_slots and connection_state), so the
 * limit holds across every worker process. This class keeps a process's waiters in order and hands a slot
 * straight from a finishing call to the next waiting one (no round trip, no idle gap), but only for
 * HAND_OFF_MS after the slot was taken from the store, so other processes get their turn.
 *
 * A 429 from the connection pauses it for Retry-After (or a second) in the store: every process stops
 * calling it until then. Refusals are never payer outages: the check waits, its attempt refunded.
 */

export interface LimitStore {
  /** Makes what the connection's limits need (slot rows, a token bucket); idempotent. */
  prepare(connection: string, limits: ResolvedLimits): Promise<void>;
  take(connection: string, concurrency: number, holder: string, holdMs: number): Promise<LimitTake>;
  release(connection: string, slot: number, holder: string): Promise<void>;
  /** True when a token was spent. */
  token(connection: string, ratePerSecond: number, burst: number): Promise<boolean>;
  pause(connection: string, untilMs: number): Promise<void>;
}

export type LimitTake = { slot: number } | { pausedForMs: number } | { busy: true };

export interface ResolvedLimits {
  concurrency?: number;
  ratePerSecond?: number;
}

/**
 * A refusal is `throttled` while the connection is paused after a 429, `busy` when its slots stayed taken
 * or this process already has enough calls queued for it (the check comes back when a slot is likely free,
 * and meanwhile the worker takes checks of other connections).
 */
export type LimitPermit =
  | { ok: true; release(): void }
  | { ok: false; reason: 'throttled' | 'busy'; retryInMs: number };

export interface LimiterOptions {
  store: LimitStore;
  /** This process's name in slot rows (the worker id). */
  holder: string;
  /** How long a slot is held at most before it counts as lost (a crashed holder): above any call's budget. */
  holdMs: number;
  now?: () => number;
  /** How often a waiter asks the store again while every slot is held elsewhere. */
  pollMs?: number;
}

/** A slot taken from the store is passed between this process's calls for at most this long. */
export const HAND_OFF_MS = 250;
/** Back-off after a 429 without Retry-After. */
export const DEFAULT_PAUSE_MS = 1_000;
/**
 * Calls of one process that may wait for a connection's slots, per slot. Beyond it a check is deferred at
 * once instead of holding a worker slot that a check of another connection could use.
 */
export const WAITERS_PER_SLOT = 4;

interface Held {
  slot: number;
  takenAt: number;
}

interface Waiter {
  resolve(held: Held | undefined): void;
}

interface ConnectionState {
  prepared?: Promise<void>;
  waiters: Waiter[];
  /** Calls of this process inside `acquire`, waiting for a slot. */
  waiting: number;
  /** Moving average of how long a call holds a slot (ms), to say when a deferred check should come back. */
  holdMs: number;
  /** Paused (locally known) until this time. */
  pausedUntil: number;
  /** One of this process's waiters is polling the store for the others. */
  polling: boolean;
}

export class ConnectionLimiter {
  private readonly state = new Map<string, ConnectionState>();
  private readonly now: () => number;
  private readonly pollMs: number;

  constructor(private readonly opts: LimiterOptions) {
    this.now = opts.now ?? Date.now;
    this.pollMs = opts.pollMs ?? 10;
  }

  /**
   * A slot (and a token) of the connection, waiting up to `waitMs`; a refusal says when to come back.
   * Connections without limits are not counted.
   */
  async acquire(
    connection: string,
    limits: ResolvedLimits | undefined,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<LimitPermit> {
    if (!limits?.concurrency && !limits?.ratePerSecond) return { ok: true, release: () => {} };
    const st = this.stateOf(connection);
    st.prepared ??= this.opts.store.prepare(connection, limits).catch((err) => {
      st.prepared = undefined;
      throw err;
    });
    await st.prepared;
    const deadline = this.now() + waitMs;
    const paused = st.pausedUntil - this.now();
    if (paused > 0) return { ok: false, reason: 'throttled', retryInMs: paused };
    let held: Held | undefined;
    if (limits.concurrency) {
      if (st.waiting >= WAITERS_PER_SLOT * limits.concurrency) {
        // Enough of this process's calls are queued for this connection: come back when they are served.
        const ahead = st.waiting / limits.concurrency;
        return { ok: false, reason: 'busy', retryInMs: Math.ceil(st.holdMs * ahead * (1 + Math.random())) };
      }
      st.waiting++;
      const got = await this.slot(connection, st, limits.concurrency, deadline, signal).finally(() => {
        st.waiting--;
      });
      if ('retryInMs' in got) return { ok: false, reason: got.reason, retryInMs: got.retryInMs };
      held = got.held;
    }
    if (limits.ratePerSecond) {
      const ok = await this.token(connection, limits.ratePerSecond, deadline, signal);
      if (!ok) {
        if (held) this.giveBack(connection, st, held);
        return { ok: false, reason: 'busy', retryInMs: Math.ceil(1000 / limits.ratePerSecond) };
      }
    }
    let released = false;
    const since = this.now();
    return {
      ok: true,
      release: () => {
        if (released || !held) return;
        released = true;
        st.holdMs = st.holdMs * 0.9 + (this.now() - since) * 0.1;
        this.giveBack(connection, st, held);
      },
    };
  }

  /** The connection answered 429: no process calls it until `retryAfterMs` from now. */
  async throttled(connection: string, retryAfterMs: number | undefined): Promise<number> {
    const ms = Math.max(1, retryAfterMs ?? DEFAULT_PAUSE_MS);
    const until = this.now() + ms;
    const st = this.stateOf(connection);
    st.pausedUntil = Math.max(st.pausedUntil, until);
    await this.opts.store.pause(connection, until).catch(() => {});
    return ms;
  }

  private stateOf(connection: string): ConnectionState {
    let st = this.state.get(connection);
    if (!st) {
      st = { waiters: [], pausedUntil: 0, waiting: 0, holdMs: 100, polling: false };
      this.state.set(connection, st);
    }
    return st;
  }

  /**
   * A slot from the store. A call asks the store once when it arrives; after that, one call per process
   * and connection (the poller) asks again every `pollMs` while the others wait for a local hand-off, a
   * slot released to the store, or the poller's place. Each waiter polling on its own costs the database a
   * query per waiter per poll: hundreds a second under load, for slots that only a few can get.
   */
  private async slot(
    connection: string,
    st: ConnectionState,
    concurrency: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<{ held: Held } | { retryInMs: number; reason: 'throttled' | 'busy' }> {
    const { store, holder, holdMs } = this.opts;
    let poller = false;
    try {
      let ask = true;
      while (!signal?.aborted) {
        if (ask) {
          // A store that cannot answer counts as busy: the check waits, it does not fail.
          const take = await store
            .take(connection, concurrency, holder, holdMs)
            .catch((): LimitTake => ({ busy: true }));
          if ('slot' in take) return { held: { slot: take.slot, takenAt: this.now() } };
          if ('pausedForMs' in take) {
            st.pausedUntil = Math.max(st.pausedUntil, this.now() + take.pausedForMs);
            return { retryInMs: take.pausedForMs, reason: 'throttled' };
          }
        }
        const left = deadline - this.now();
        if (left <= 0) break;
        if (!poller && !st.polling) poller = st.polling = true;
        const waitMs = poller ? Math.min(left, this.pollMs * (1 + Math.random())) : left;
        const handed = await this.wait(st, waitMs, signal);
        if (handed) return { held: handed };
        // Woken without a slot: the poll interval passed, a slot went back to the store, or the poller
        // left (and this call may take its place). Either way, ask the store.
        ask = true;
      }
    } finally {
      if (poller) {
        st.polling = false;
        st.waiters.shift()?.resolve(undefined); // the next waiter polls in its place
      }
    }
    return { retryInMs: Math.ceil(Math.max(this.pollMs, st.holdMs) * (1 + Math.random())), reason: 'busy' };
  }

  private wait(st: ConnectionState, ms: number, signal?: AbortSignal): Promise<Held | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve: (held) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(held);
        },
      };
      const drop = () => {
        const i = st.waiters.indexOf(waiter);
        if (i >= 0) st.waiters.splice(i, 1);
      };
      const timer = setTimeout(() => {
        drop();
        waiter.resolve(undefined);
      }, ms);
      const onAbort = () => {
        drop();
        waiter.resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      st.waiters.push(waiter);
    });
  }

  private async token(
    connection: string,
    ratePerSecond: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const burst = Math.max(1, Math.ceil(ratePerSecond));
    for (;;) {
      const ok = await this.opts.store.token(connection, ratePerSecond, burst).catch(() => false);
      if (ok) return true;
      const left = deadline - this.now();
      if (left <= 0 || signal?.aborted) return false;
      await new Promise((r) => setTimeout(r, Math.min(left, Math.ceil(1000 / ratePerSecond / 2))));
    }
  }

  /** To the next local waiter while the slot is fresh, else back to the store. */
  private giveBack(connection: string, st: ConnectionState, held: Held): void {
    const next = st.waiters.shift();
    if (next && this.now() - held.takenAt < HAND_OFF_MS && this.now() >= st.pausedUntil) {
      next.resolve(held);
      return;
    }
    // Back to the store; the next waiter asks for it once it is there (asking before the release has
    // landed would find every slot taken, and leave this one idle until the next poll).
    void this.opts.store
      .release(connection, held.slot, this.opts.holder)
      .catch(() => {})
      .finally(() => next?.resolve(undefined));
  }
}

/** The store of one process (PGlite, tests): counts in memory. */
export class LocalLimitStore implements LimitStore {
  private readonly slots = new Map<string, (string | undefined)[]>();
  private readonly expiries = new Map<string, number[]>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly pauses = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async prepare(connection: string, limits: ResolvedLimits): Promise<void> {
    if (limits.ratePerSecond && !this.buckets.has(connection)) {
      this.buckets.set(connection, { tokens: Math.max(1, Math.ceil(limits.ratePerSecond)), at: this.now() });
    }
  }

  async take(connection: string, concurrency: number, holder: string, holdMs: number): Promise<LimitTake> {
    const paused = (this.pauses.get(connection) ?? 0) - this.now();
    if (paused > 0) return { pausedForMs: paused };
    const holders = this.slots.get(connection) ?? [];
    const expiries = this.expiries.get(connection) ?? [];
    this.slots.set(connection, holders);
    this.expiries.set(connection, expiries);
    for (let slot = 0; slot < concurrency; slot++) {
      if (holders[slot] === undefined || (expiries[slot] ?? 0) < this.now()) {
        holders[slot] = holder;
        expiries[slot] = this.now() + holdMs;
        return { slot };
      }
    }
    return { busy: true };
  }

  async release(connection: string, slot: number, holder: string): Promise<void> {
    const holders = this.slots.get(connection);
    if (holders?.[slot] === holder) holders[slot] = undefined;
  }

  async token(connection: string, ratePerSecond: number, burst: number): Promise<boolean> {
    const b = this.buckets.get(connection) ?? { tokens: burst, at: this.now() };
    const tokens = Math.min(burst, b.tokens + (ratePerSecond * (this.now() - b.at)) / 1000);
    const ok = tokens >= 1;
    this.buckets.set(connection, { tokens: ok ? tokens - 1 : tokens, at: this.now() });
    return ok;
  }

  async pause(connection: string, untilMs: number): Promise<void> {
    this.pauses.set(connection, Math.max(this.pauses.get(connection) ?? 0, untilMs));
  }

  /** Slots held now (tests). */
  held(connection: string): number {
    const expiries = this.expiries.get(connection) ?? [];
    return (this.slots.get(connection) ?? []).filter(
      (h, i) => h !== undefined && (expiries[i] ?? 0) >= this.now(),
    ).length;
  }
}
