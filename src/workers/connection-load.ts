/**
 * How many checks this worker process holds per connection, so its claims leave a connection alone once
 * it has enough of them (src/store/queue/claim.ts, `skipConnections`).
 *
 * Why: a connection with an account limit (`limits.concurrency`) can only be asked a handful at a time. A
 * worker that claims more of its checks than it can feed fills its own slots with checks that only wait
 * for the connection (src/payers/limits.ts), and the checks of every other connection wait for a slot
 * behind them. Holding CLAIM_AHEAD times the connection's concurrency keeps the connection busy (a
 * finishing call hands its slot straight to a waiting one) and leaves the rest of the worker free.
 * Connections without a concurrency limit are never skipped.
 */

/** Checks of a limited connection one worker holds at most, per slot of the connection's limit. */
export const CLAIM_AHEAD = 2;

export class ConnectionLoad {
  private readonly held = new Map<string, { checks: number; cap: number }>();

  /**
   * A claimed check of `connection` ('' for none) is now held; `limit` is the connection's concurrency
   * limit as the directory says now (undefined: unlimited).
   */
  take(connection: string, limit: number | undefined): void {
    if (!connection) return;
    const entry = this.held.get(connection) ?? { checks: 0, cap: Number.POSITIVE_INFINITY };
    entry.cap = limit ? limit * CLAIM_AHEAD : Number.POSITIVE_INFINITY;
    entry.checks++;
    this.held.set(connection, entry);
  }

  /** A check of `connection` is finished, deferred or released. */
  drop(connection: string): void {
    const entry = connection ? this.held.get(connection) : undefined;
    if (!entry) return;
    if (--entry.checks <= 0) this.held.delete(connection);
  }

  /** The connections this worker holds enough checks of: the next claim leaves them alone. */
  saturated(): string[] {
    const names: string[] = [];
    for (const [name, entry] of this.held) if (entry.checks >= entry.cap) names.push(name);
    return names;
  }
}
