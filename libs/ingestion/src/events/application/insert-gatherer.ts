/** When gathered items are written: once there are `maxItems`, or once the oldest has waited `maxWaitMs`. */
export interface GatherLimits {
  readonly maxItems: number;
  readonly maxWaitMs: number;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Items gathered for the next write, and the submitters waiting for it. */
interface Gathering<T> {
  readonly items: T[];
  readonly waiters: Waiter[];
  /** When it is written at the latest (epoch ms). */
  dueAt: number;
  timer?: NodeJS.Timeout;
}

/**
 * Gathers the items of many submitters into few large writes: the gathered items are written once
 * there are `maxItems` of them, or once the oldest has waited `maxWaitMs`. An item waits from when it
 * was accepted upstream (`acceptedAt`), not from when it arrives here: a submitter that sends the next
 * items only after its previous ones are written (one outbox relay lane, one Kafka partition) is held
 * back only while items are fresh, and a backlog is written at once. Each submitter learns the
 * outcome of the write that carried its items: resolved after it succeeded, rejected with its error.
 * Writes may overlap: gathering for the next one starts while the previous one runs.
 */
export class InsertGatherer<T> {
  private gathering: Gathering<T> | undefined;
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly limits: GatherLimits,
  ) {}

  /** Resolves once a write carrying `items` succeeded; `acceptedAt` (epoch ms) is when the oldest of them was accepted. */
  submit(items: readonly T[], acceptedAt: number): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const gathering = (this.gathering ??= { items: [], waiters: [], dueAt: Infinity });
    for (const item of items) gathering.items.push(item);
    const written = new Promise<void>((resolve, reject) => gathering.waiters.push({ resolve, reject }));
    if (gathering.items.length >= this.limits.maxItems) {
      this.flush();
    } else {
      // An item stamped later than now (another host's clock) still waits no longer than maxWaitMs.
      this.dueBy(gathering, Math.min(acceptedAt, Date.now()) + this.limits.maxWaitMs);
    }
    return written;
  }

  /** Writes what is gathered now, and resolves once every write so far has settled (for an orderly shutdown). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.writes]);
  }

  private dueBy(gathering: Gathering<T>, dueAt: number): void {
    if (dueAt >= gathering.dueAt) return;
    gathering.dueAt = dueAt;
    clearTimeout(gathering.timer);
    // A timer even when already due, so that submitters of the same moment share the write.
    gathering.timer = setTimeout(() => this.flush(), Math.max(0, dueAt - Date.now()));
  }

  private flush(): void {
    const gathering = this.gathering;
    if (gathering === undefined) return;
    this.gathering = undefined;
    clearTimeout(gathering.timer);
    const written = this.writeGathered(gathering);
    this.writes.add(written);
    void written.finally(() => this.writes.delete(written));
  }

  private async writeGathered({ items, waiters }: Gathering<T>): Promise<void> {
    try {
      await this.write(items);
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
    }
  }
}
