/**
 * Coalesced NOTIFY: many calls within a short window send one notification. NOTIFY takes a global lock
 * at commit in PostgreSQL (and a round trip in PGlite), so one per accepted check would cap submit
 * throughput; waking the workers once per few milliseconds is just as fast for them.
 */
import type { Db } from './db.ts';

export interface Notifier {
  notify(): void;
  /** Sends a pending notification now (shutdown). */
  flush(): Promise<void>;
}

export function createCoalescingNotifier(db: Db, channel: string, windowMs = 20): Notifier {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const send = () => {
    timer = undefined;
    inFlight = db.notify(channel).catch(() => {
      // Workers also poll; a lost wake-up only delays a check by the polling interval.
    });
  };
  return {
    notify() {
      if (!timer) timer = setTimeout(send, windowMs);
    },
    async flush() {
      if (timer) {
        clearTimeout(timer);
        send();
      }
      await inFlight;
    },
  };
}
