/**
 * Waiting for something that happens asynchronously (a check finishing, a delivery arriving, a row
 * reaching its final state), with one bounded retry loop instead of one per test.
 */

export interface EventuallyOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 20 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

/**
 * Calls `fn` until it returns a truthy value, and returns that value. A throw or a falsy result means
 * "not yet": after `timeoutMs` the last of them is reported (a throw as the error's cause), so a timed-out
 * assertion still says what it saw. An attempt that hangs is cut off at the deadline too.
 */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, what = 'the condition' }: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: { error: unknown } | { value: unknown } = { value: undefined };
  for (;;) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const value = await Promise.race([
        Promise.resolve().then(fn),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AttemptTimeout(left)), Math.max(left, 0));
        }),
      ]);
      if (value) return value as NonNullable<T>;
      last = { value };
    } catch (error) {
      last = { error };
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() + intervalMs > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  if ('error' in last) {
    const reason = last.error instanceof Error ? last.error.message : String(last.error);
    throw new Error(`${what} did not hold within ${timeoutMs} ms; last failure: ${reason}`, {
      cause: last.error,
    });
  }
  throw new Error(`${what} did not hold within ${timeoutMs} ms; last result: ${describe(last.value)}`);
}

class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
  constructor(ms: number) {
    super(`an attempt was still running when the remaining ${Math.max(ms, 0)} ms ran out`);
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
