/** How much one commit may carry. An item larger than `maxBytes` is still committed, alone. */
export interface BatchLimits {
  readonly maxItems: number;
  readonly maxBytes: number;
}

interface Waiting<T> {
  readonly item: T;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: one commit at a time, and everything submitted while it runs goes into the next one.
 * An idle queue commits a lone item at once (no waiting for company); under load, batches grow by
 * themselves up to the limits, so the cost of a commit is shared by many submitters. Each submitter
 * learns the outcome of the commit that carried its item: resolved after it succeeded, rejected with
 * its error when it failed (the other batches are unaffected).
 */
export class GroupCommit<T> {
  private readonly queue: Waiting<T>[] = [];
  private committing = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    private readonly limits: BatchLimits,
  ) {}

  /** Resolves once a commit carrying `item` succeeded; `bytes` is its size as the limits count it. */
  submit(item: T, bytes: number): Promise<void> {
    const committed = new Promise<void>((resolve, reject) => this.queue.push({ item, bytes, resolve, reject }));
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
