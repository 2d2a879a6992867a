/** How much one commit may carry. An item larger than `maxBytes` is still committed, alone. */
export interface BatchLimits {
  readonly maxItems: number;
  readonly maxBytes: number;
  /**
   * How long a commit waits for company before it starts, unless `maxItems` are already waiting (ms;
   * 0 or absent: it starts at once). A commit's fixed cost is then shared by what arrives meanwhile
   * too, not only by what arrived while the previous commit ran, at the price of that wait.
   */
  readonly lingerMs?: number;
}

interface Waiting<T> {
  readonly item: T;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: one commit at a time, and everything submitted while it runs goes into the next one.
 * An idle queue commits a lone item at once (no waiting for company, unless `lingerMs` says to); under load, batches grow by
 * themselves up to the limits, so the cost of a commit is shared by many submitters. Each submitter
 * learns the outcome of the commit that carried its item: resolved after it succeeded, rejected with
 * its error when it failed (the other batches are unaffected).
 */
export class GroupCommit<T> {
  private readonly queue: Waiting<T>[] = [];
  private committing = false;
  /** Ends the wait of `linger` early, while one runs. */
  private endLinger: (() => void) | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    private readonly limits: BatchLimits,
  ) {}

  /** Resolves once a commit carrying `item` succeeded; `bytes` is its size as the limits count it. */
  submit(item: T, bytes: number): Promise<void> {
    const committed = new Promise<void>((resolve, reject) => this.queue.push({ item, bytes, resolve, reject }));
    if (this.queue.length >= this.limits.maxItems) this.endLinger?.();
    if (!this.committing) {
      this.committing = true;
      this.idle = this.commitAll();
    }
    return committed;
  }

  /** Resolves once everything submitted so far is committed or rejected (for an orderly shutdown). */
  drained(): Promise<void> {
    return this.idle;
  }

  private async commitAll(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // Without a linger the first commit starts in the submitter's own turn (no await in between).
        if (this.lingers()) await this.linger();
        const batch = this.nextBatch();
        try {
          await this.commit(batch.map((waiting) => waiting.item));
          for (const waiting of batch) waiting.resolve();
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.committing = false;
    }
  }

  private lingers(): boolean {
    return (this.limits.lingerMs ?? 0) > 0 && this.queue.length < this.limits.maxItems;
  }

  /** Waits `lingerMs`, or until `maxItems` are waiting (`submit` ends the wait then). */
  private linger(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endLinger?.(), this.limits.lingerMs);
      this.endLinger = () => {
        clearTimeout(timer);
        this.endLinger = undefined;
        resolve();
      };
    });
  }

  /** The oldest waiting items, as many as the limits allow (at least one). */
  private nextBatch(): Waiting<T>[] {
    let count = 0;
    let bytes = 0;
    for (const waiting of this.queue) {
      if (count === this.limits.maxItems || (count > 0 && bytes + waiting.bytes > this.limits.maxBytes)) break;
      count += 1;
      bytes += waiting.bytes;
    }
    return this.queue.splice(0, count);
  }
}
