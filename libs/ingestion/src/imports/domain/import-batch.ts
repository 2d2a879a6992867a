import type { RowOutcome } from './import-rows';
import { isRowProblem, type RowFailure, storableFailure } from './row-failure';

/**
 * How large a batch grows: at most `rows` rows, and about `chars` characters of keys and text (rows
 * may be up to 1 MB each), which keeps a batch's memory, and its message or insert, bounded.
 */
export interface BatchLimits {
  readonly rows: number;
  readonly chars: number;
}

/** A batch published to another service: one transaction and one message. */
export const PUBLISHED_BATCH: BatchLimits = { rows: 5_000, chars: 8 * 1024 * 1024 };
/**
 * A batch inserted into the event store: ClickHouse takes 10 k to 100 k rows per insert in its stride,
 * and two batches (one inserting, the next being read) fit a process's memory with room to spare.
 */
export const STORED_BATCH: BatchLimits = { rows: 20_000, chars: 16 * 1024 * 1024 };

/** The valid rows the filtering rules keep, with their lines, and the names of the ones they drop. */
export interface KeptRows<T> {
  readonly items: readonly T[];
  readonly lines: readonly number[];
  readonly droppedNames: readonly string[];
}

/**
 * One batch of an import: the rows read since the previous batch, in file order. Batches are cut by
 * row count and size only, never by time or by how the file happened to be chunked, so the same file
 * always makes the same batches (the message ids of published ones are `<job>:batch:<index>`).
 */
export class ImportBatch<T> {
  rows = 0;
  private size = 0;
  readonly items: T[] = [];
  readonly lines: number[] = [];
  readonly failures: RowFailure[] = [];

  constructor(
    readonly index: number,
    private readonly limits: BatchLimits,
  ) {}

  add(line: number, outcome: RowOutcome<T>): void {
    this.rows += 1;
    if (isRowProblem(outcome)) {
      this.failures.push(storableFailure(line, outcome));
      return;
    }
    this.items.push(outcome.item);
    this.lines.push(line);
    this.size += outcome.size;
  }

  get isFull(): boolean {
    return this.rows >= this.limits.rows || this.size >= this.limits.chars;
  }

  /** The valid rows, minus those `droppedName` names (the ones the ingestion filtering rules drop). */
  kept(droppedName?: (item: T) => string | undefined): KeptRows<T> {
    if (droppedName === undefined) return { items: this.items, lines: this.lines, droppedNames: [] };
    const items: T[] = [];
    const lines: number[] = [];
    const droppedNames: string[] = [];
    this.items.forEach((item, index) => {
      const dropped = droppedName(item);
      if (dropped === undefined) {
        items.push(item);
        lines.push(this.lines[index]);
      } else {
        droppedNames.push(dropped);
      }
    });
    return { items, lines, droppedNames };
  }
}
