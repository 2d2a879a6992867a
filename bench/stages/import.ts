import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_LIMIT_BYTES } from '../config';
import type { Figure } from '../report';
import { elapsedSince } from '../support/clock';
import { writeNdjsonFile, type GeneratedLines } from '../support/event-rows';
import { BenchAccount, completedAttributes, countAttribute } from '../support/guidepost-client';
import { stageOfShape, type Deployment } from '../support/deployment';
import { measureMemory } from '../support/process-memory';
import { count, megabytes, megabytesPerSecond, perSecond, seconds } from '../units';
import { memoryFigures, PEAK_LIMIT_BYTES } from './memory-figures';

export const IMPORT_STAGE = '3 import';
const IMPORT_TIMEOUT_MS = 60 * 60_000;

/** Events imported into an account, and the next generated row index (rows never repeat). */
export interface ImportedEvents {
  readonly account: BenchAccount;
  readonly rows: number;
  readonly nextRow: number;
}

interface ImportRun {
  readonly fileBytes: number;
  readonly fileRows: number;
  readonly completed: number;
  readonly failed: number;
  readonly uploadMs: number;
  readonly totalMs: number;
}

/**
 * Uploads a generated NDJSON file of `bytes` to `POST /import/events` as a multipart file and times
 * it until the job is COMPLETED, watching the memory of every process of the deployment meanwhile.
 */
export async function measureImport(
  deployment: Deployment,
  bytes: number,
  workDir: string,
): Promise<{ figures: Figure[]; imported: ImportedEvents }> {
  const stage = stageOfShape(IMPORT_STAGE, deployment.shape);
  const account = await BenchAccount.create(deployment, 'bench import and export');
  const { result: run, watched } = await withGeneratedFile(workDir, 0, { maxBytes: bytes }, (path, file) =>
    measureMemory(deployment.processes, () => importFile(account, path, file)),
  );
  const figures: Figure[] = [
    {
      stage,
      figure: `${megabytes(run.fileBytes)} NDJSON file, upload to COMPLETED`,
      measured:
        `${perSecond(run.completed, run.totalMs, 'rows')}, ${megabytesPerSecond(run.fileBytes, run.totalMs)} ` +
        `(${count(run.completed)} rows in ${seconds(run.totalMs)}; 202 after ${seconds(run.uploadMs)})`,
    },
    {
      stage,
      figure: 'rows imported',
      measured: `${count(run.completed)} completed, ${count(run.failed)} failed, of ${count(run.fileRows)}`,
      target: { target: 'all rows', met: run.completed === run.fileRows },
    },
    ...memoryFigures(stage, watched, PEAK_LIMIT_BYTES[deployment.shape]),
  ];
  return { figures, imported: { account, rows: run.completed, nextRow: run.fileRows } };
}

/**
 * Imports generated rows until the account holds at least `rows` events (in files under the file
 * limit), for stages that need events without measuring how they got there.
 */
export async function importUntil(imported: ImportedEvents, rows: number, workDir: string): Promise<ImportedEvents> {
  let current = imported;
  while (current.rows < rows) {
    const limits = { maxBytes: FILE_LIMIT_BYTES, maxRows: rows - current.rows };
    const run = await withGeneratedFile(workDir, current.nextRow, limits, (path, file) => importFile(current.account, path, file));
    if (run.completed === 0) throw new Error(`an import of ${run.fileRows} rows stored none (${run.failed} failed)`);
    current = { account: current.account, rows: current.rows + run.completed, nextRow: current.nextRow + run.fileRows };
  }
  return current;
}

/** Writes rows from `firstRow` on to an NDJSON file for `use`, and deletes it afterwards. */
async function withGeneratedFile<T>(
  workDir: string,
  firstRow: number,
  limits: { maxBytes: number; maxRows?: number },
  use: (path: string, file: GeneratedLines) => Promise<T>,
): Promise<T> {
  const path = join(workDir, `events-from-row-${firstRow}.ndjson`);
  try {
    return await use(path, await writeNdjsonFile(path, firstRow, limits));
  } finally {
    await rm(path, { force: true });
  }
}

/** Uploads the file to `/import/events` and waits for the job to complete. */
async function importFile(account: BenchAccount, path: string, file: GeneratedLines): Promise<ImportRun> {
  const start = performance.now();
  const acknowledgement = await account.importEvents(path);
  const uploadMs = elapsedSince(start);
  const job = await account.finishedJob(acknowledgement.job_id, IMPORT_TIMEOUT_MS);
  const totalMs = elapsedSince(start);
  const attributes = completedAttributes(job);
  return {
    fileBytes: file.bytes,
    fileRows: file.rows,
    completed: countAttribute(attributes, 'ingestions_completed'),
    failed: countAttribute(attributes, 'ingestions_failed'),
    uploadMs,
    totalMs,
  };
}
