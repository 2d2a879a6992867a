/** Milliseconds since `start` (a `performance.now()` reading). */
export function elapsedSince(start: number): number {
  return performance.now() - start;
}

export function delay(milliseconds: number): Promise<void> {
  return new Promise((done) => setTimeout(done, milliseconds));
}

/**
 * Calls `probe` every `intervalMs` until it returns a value other than `undefined`; after
 * `timeoutMs` fails with `describeWait()` (what was still awaited).
 */
export async function pollUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  options: { readonly timeoutMs: number; readonly intervalMs: number; readonly describeWait: () => string },
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() + options.intervalMs > deadline) {
      throw new Error(`gave up after ${options.timeoutMs / 1000} s: ${options.describeWait()}`);
    }
    await delay(options.intervalMs);
  }
}

/** Whether `promise` settles within `milliseconds` (the timer is cleared either way, so it never holds the process open). */
export async function settlesWithin(promise: Promise<unknown>, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((done) => (timer = setTimeout(() => done(false), milliseconds)));
  try {
    return await Promise.race([
      promise.then(
        () => true as const,
        () => true as const,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
