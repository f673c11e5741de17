/**
 * The wait of a polling loop that is also woken (a NOTIFY, a new monitor, a finished task): it sleeps
 * until the poll interval passes or a wake-up comes. A wake-up that arrives while the loop is busy (say,
 * between its claim's snapshot and the nap) is kept, so the next nap returns at once: a notification is
 * never lost to a poll interval.
 */
export class Nap {
  private wakeUp: (() => void) | undefined;
  private woken = false;

  /** Ends the current nap, or the next one if none is under way. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Forgets earlier wake-ups: call before looking for work, so only later ones cut the next nap short. */
  begin(): void {
    this.woken = false;
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
