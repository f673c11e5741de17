/**
 * Which lane a statement waits in on a store that runs one statement at a time (PGlite): the statements of
 * background work (batch checks, monitor runs) wait behind those of everything else, so a front desk's
 * single check and its status reads are not queued behind a 10,000-check batch's. The lane follows the
 * async context: work started inside `inBackgroundLane` issues background statements all the way down.
 * A pooled store (PostgreSQL) runs statements side by side and ignores the lanes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const lane = new AsyncLocalStorage<'background'>();

/** Runs `fn` with every statement it issues (awaited or not) in the background lane. */
export function inBackgroundLane<T>(fn: () => T): T {
  return lane.run('background', fn);
}

export function inBackground(): boolean {
  return lane.getStore() === 'background';
}
