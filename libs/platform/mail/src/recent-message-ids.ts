/**
 * The last `capacity` message ids seen, oldest forgotten first. Memory only: it stops repeats within
 * one process lifetime and nothing more.
 */
export class RecentMessageIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
}
