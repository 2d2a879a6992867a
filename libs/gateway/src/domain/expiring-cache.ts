export interface ExpiringCacheOptions {
  /** How long an entry is trusted after it was stored. */
  readonly ttlMs: number;
  /** Upper bound on entries; the least recently used one is dropped to make room. */
  readonly maxEntries: number;
}

/**
 * A small in-memory map whose entries expire after a fixed time and whose size is bounded (least
 * recently used first out), so memory stays flat whatever clients send. An expired entry is kept until
 * room is needed, for a caller that would rather have a stale value than none (`getStale`).
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly expiresAt: number }>();

  constructor(
    private readonly options: ExpiringCacheOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry's value while its time to live lasts. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expiresAt <= this.now()) return undefined;
    // Re-inserting moves the entry to the end of the Map's order: the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The entry's value, expired or not, as long as it has not been deleted or pushed out. */
  getStale(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) {
      const leastRecentlyUsed = this.entries.keys().next();
      if (!leastRecentlyUsed.done) this.entries.delete(leastRecentlyUsed.value);
    }
    this.entries.set(key, { value, expiresAt: this.now() + this.options.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
