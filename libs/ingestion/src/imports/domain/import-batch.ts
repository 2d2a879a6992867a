import type { RowOutcome } from './import-rows';
import { isRowProblem, type RowFailure, storableFailure } from './row-failure';

/** Rows per batch: each batch is one transaction and one message. */
export const BATCH_ROWS = 5_000;
/**
 * And at most about this many characters of keys and text (rows may be up to 1 MB each): what keeps
 * a batch's memory, and its message, bounded.
 */
export const BATCH_CHARS = 8 * 1024 * 1024;

/** The valid rows the filtering rules keep, with their lines, and the names of the ones they drop. */
export interface KeptRows<T> {
  readonly items: readonly T[];
  readonly lines: readonly number[];
  readonly droppedNames: readonly string[];
}

/**
 * One batch of an import: the rows read since the previous batch, in file order. Batches are cut by
 * row count and size only, never by time or by how the file happened to be chunked, so the same file
 * always makes the same batches (their message ids are `<job>:batch:<index>`).
 */
export class ImportBatch<T> {
  rows = 0;
  private size = 0;
  readonly items: T[] = [];
  readonly lines: number[] = [];
  readonly failures: RowFailure[] = [];

  constructor(readonly index: number) {}

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
    return this.rows >= BATCH_ROWS || this.size >= BATCH_CHARS;
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
