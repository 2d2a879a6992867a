import { Injectable, Logger } from '@nestjs/common';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { ImportRepository } from '../data-access/import.repository';
import type { RowFailure } from '../domain/row-failure';

/** Publishes items under a message id, inside the transaction. */
export type Publish<T> = (tx: Transaction, messageId: string, items: readonly T[]) => void;

/** A batch as the worker hands it over: the valid rows (with their lines) and the failed ones. */
export interface BatchToWrite<T> {
  readonly jobId: string;
  /** Deterministic message id (`<job>:batch:<n>`). */
  readonly messageId: string;
  readonly items: readonly T[];
  readonly lines: readonly number[];
  readonly failures: readonly RowFailure[];
}

export interface WrittenBatch {
  /** The messages published for the batch: its own id, or the ids of the parts it was split into. */
  readonly messageIds: string[];
  /** Rows the database refused although they passed every row check (their batch was split to find them). */
  readonly unstorable: RowFailure[];
}

/** Attempts at a transaction that fails for reasons other than its data (connection lost, failover). */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;
/**
 * PostgreSQL error classes that blame the data, not the database: 22 (data exception: NUL in text,
 * invalid JSON escapes, ...) and 54 (program limit exceeded: too deep, too large). Retrying such a
 * transaction cannot help; leaving it out of the batch does.
 */
const DATA_ERROR_CLASSES: ReadonlySet<string> = new Set(['22', '54']);

/**
 * Writes an import batch: its failures (an upsert) and its message, in one transaction, so that a
 * batch is either wholly recorded or not at all, and a batch written again after a crash changes
 * nothing (same failure rows, same message id, which the outbox ignores the second time).
 *
 * The row checks keep unstorable values out of batches, but should the database still refuse a
 * batch for its data, the batch is split in halves until the rows it refuses are alone; those fail
 * on their own ("could not be stored"), the others are published under ids derived from the batch's
 * (`<batch id>:0`, `<batch id>:01`...), deterministic as well. One bad row never blocks a job.
 */
@Injectable()
export class ImportBatchWriter {
  private readonly logger = new Logger(ImportBatchWriter.name);

  constructor(
    private readonly repository: ImportRepository,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  async write<T>(batch: BatchToWrite<T>, publish: Publish<T>): Promise<WrittenBatch> {
    const publishesItems = batch.items.length > 0;
    try {
      await this.transaction(async (tx) => {
        await this.repository.upsert(tx.manager, batch.jobId, batch.failures);
        if (publishesItems) publish(tx, batch.messageId, batch.items);
      });
      return { messageIds: publishesItems ? [batch.messageId] : [], unstorable: [] };
    } catch (error) {
      if (!isDataError(error)) throw error;
      this.logger.warn(`import batch ${batch.messageId} was refused for its data, looking for the rows at fault: ${describe(error)}`);
    }
    const written: WrittenBatch = { messageIds: [], unstorable: [] };
    await this.writeParts(batch, publish, `${batch.messageId}:`, 0, batch.items.length, written);
    const failures = [...batch.failures, ...written.unstorable].sort((a, b) => a.line - b.line);
    await this.transaction((tx) => this.repository.upsert(tx.manager, batch.jobId, failures));
    return written;
  }

  /** Records failures of a batch whose rows went elsewhere (stored, not published): an upsert, as `write` does. */
  async recordFailures(jobId: string, failures: readonly RowFailure[]): Promise<void> {
    if (failures.length > 0) await this.transaction((tx) => this.repository.upsert(tx.manager, jobId, failures));
  }

  /** Publishes `items[from, to)` under `idPrefix`, splitting again whatever the database refuses. */
  private async writeParts<T>(
    batch: BatchToWrite<T>,
    publish: Publish<T>,
    idPrefix: string,
    from: number,
    to: number,
    written: WrittenBatch,
  ): Promise<void> {
    const middle = from + Math.ceil((to - from) / 2);
    const parts: [number, number, string][] = [
      [from, middle, `${idPrefix}0`],
      [middle, to, `${idPrefix}1`],
    ];
    for (const [start, end, messageId] of parts) {
      if (start === end) continue;
      try {
        await this.transaction((tx) => publish(tx, messageId, batch.items.slice(start, end)));
        written.messageIds.push(messageId);
      } catch (error) {
        if (!isDataError(error)) throw error;
        if (end - start > 1) await this.writeParts(batch, publish, messageId, start, end, written);
        else written.unstorable.push({ line: batch.lines[start], field: null, reason: `could not be stored (${describe(error)})` });
      }
    }
  }

  /** A transaction, tried again a few times when it fails for reasons other than its data. */
  private async transaction(work: (tx: Transaction) => Promise<void> | void): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.unitOfWork.run(async (tx) => {
          await work(tx);
        });
        return;
      } catch (error) {
        if (isDataError(error) || attempt >= ATTEMPTS) throw error;
        this.logger.warn(`import batch transaction failed (attempt ${attempt} of ${ATTEMPTS}), retrying: ${describe(error)}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
  }
}

/** Whether the database (or the driver serializing the payload) refused the data itself. */
export function isDataError(error: unknown): boolean {
  // JSON.stringify of a value nested too deep for the stack.
  if (error instanceof RangeError) return true;
  const code =
    (error as { code?: unknown } | undefined)?.code ?? (error as { driverError?: { code?: unknown } } | undefined)?.driverError?.code;
  return typeof code === 'string' && DATA_ERROR_CLASSES.has(code.slice(0, 2));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
