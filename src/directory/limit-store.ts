/**
 * The connection limits of every worker process, kept in the database (PostgreSQL): slots in
 * connection_slots, the token bucket and 429 back-off in connection_state. See src/payers/limits.ts.
 */
import type { LimitStore, LimitTake, ResolvedLimits } from '../payers/limits.ts';
import type { Queryable } from '../store/db.ts';
import {
  ensureConnectionSlots,
  releaseConnectionSlot,
  takeConnectionSlot,
} from '../store/queue/connection-slot-take.ts';
import {
  ensureConnectionState,
  pauseConnection,
  takeConnectionToken,
} from '../store/queue/connection-state.ts';

export class DatabaseLimitStore implements LimitStore {
  constructor(private readonly db: Queryable) {}

  async prepare(connection: string, limits: ResolvedLimits): Promise<void> {
    if (limits.concurrency) await ensureConnectionSlots(this.db, connection, limits.concurrency);
    await ensureConnectionState(this.db, connection, Math.max(1, Math.ceil(limits.ratePerSecond ?? 1)));
  }

  take(connection: string, concurrency: number, holder: string, holdMs: number): Promise<LimitTake> {
    return takeConnectionSlot(this.db, connection, concurrency, holder, holdMs);
  }

  release(connection: string, slot: number, holder: string): Promise<void> {
    return releaseConnectionSlot(this.db, connection, slot, holder);
  }

  token(connection: string, ratePerSecond: number, burst: number): Promise<boolean> {
    return takeConnectionToken(this.db, connection, ratePerSecond, burst);
  }

  pause(connection: string, untilMs: number): Promise<void> {
    return pauseConnection(this.db, connection, untilMs);
  }
}
