export interface PeriodicTaskOptions<T> {
  /** Time between the starts of two runs (ms). */
  readonly intervalMs: number;
  /** One run. */
  readonly run: () => Promise<T>;
  /** What a failed run resolves with; the failure is the task's to report, and the next run tries again. */
  readonly onFailure: (error: unknown) => T;
}

/**
 * A chore a process repeats in the background (sweeps of expired data, polls): every `intervalMs`
 * once started, at most one run at a time (a run asked for while one is going is that same run), a
 * failure never escaping, the timer never keeping the process alive, and `stop` waiting for the run in
 * hand, so nothing is cut off when the stores it uses close.
 */
export class PeriodicTask<T = void> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;

  constructor(private readonly options: PeriodicTaskOptions<T>) {}

  start(): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Runs now, or joins the run in hand. */
  runOnce(): Promise<T> {
    this.running ??= this.options
      .run()
      .catch((error: unknown) => this.options.onFailure(error))
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
