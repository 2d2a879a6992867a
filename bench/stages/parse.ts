import { Readable } from 'node:stream';
import { csvColumnsOf, csvRecordTyper, csvRowBatches, isRecordFailure, ndjsonValueBatches, ndjsonValues } from '@guidepost/platform-http';
import Papa from 'papaparse';
import { inferSchema, initParser } from 'udsv';
import type { ParseSettings } from '../config';
import { ratioAtLeast, type Figure } from '../report';
import { generateDocuments } from '../support/event-rows';
import { count, megabytes, megabytesPerSecond } from '../units';

export const PARSE_STAGE = '2 import parse';
/** docs/performance.md: the import readers (the CSV one with its cell typing too) at least 80 % of per-line JSON.parse and of the fastest CSV parser. */
const TARGET_RATIO = 0.8;
/** What a request or multipart stream hands a reader at a time. */
const CHUNK_BYTES = 64 * 1024;

/** A parser under test: reads the whole document from its bytes and returns the data rows it found. */
interface Parser {
  readonly name: string;
  parse(document: Buffer): number | Promise<number>;
}

interface Timing {
  readonly parser: Parser;
  readonly bytes: number;
  readonly milliseconds: number;
}

/** Baseline: the whole text split on newlines, one `JSON.parse` per line (no streaming, no line numbers). */
const jsonParsePerLine: Parser = {
  name: 'JSON.parse per line',
  parse(document) {
    let rows = 0;
    for (const line of document.toString('utf8').split('\n')) {
      if (line.length === 0) continue;
      JSON.parse(line);
      rows += 1;
    }
    return rows;
  },
};

/** What event imports read an NDJSON upload with: tolerant (a bad line is a failure in place), a chunk's rows at a time. */
const importNdjsonReader: Parser = {
  name: 'Guidepost ndjsonValueBatches (import reader)',
  parse: (document) => countReadRecords(ndjsonValueBatches(streamOf(document))),
};

/** What request bodies are read with (segment users, group users): strict, one value at a time. */
const strictNdjsonReader: Parser = {
  name: 'Guidepost ndjsonValues (request bodies)',
  parse: (document) => countItems(ndjsonValues(streamOf(document))),
};

/** uDSV's fastest mode: string cells, rows handed to a callback instead of collected. */
const udsvStrings: Parser = {
  name: 'uDSV stringArrs',
  parse(document) {
    const text = document.toString('utf8');
    let rows = 0;
    initParser(inferSchema(text)).stringArrs(text, () => {
      rows += 1;
    });
    return rows;
  },
};

const papaparseStrings: Parser = {
  name: 'papaparse',
  parse(document) {
    const parsed = Papa.parse<string[]>(document.toString('utf8'), { delimiter: ',', newline: '\n', skipEmptyLines: true });
    return parsed.data.length - 1;
  },
};

/** What imports read a CSV upload with: tolerant, a chunk's rows at a time (the header is a row too). */
const importCsvReader: Parser = {
  name: 'Guidepost csvRowBatches (import reader)',
  parse: async (document) => (await countReadRecords(csvRowBatches(streamOf(document)))) - 1,
};

/**
 * The import reader plus what a CSV import then does with each row: cells typed (numbers, booleans)
 * into an object, each column's typing decided once under the header. The figure issue 11 targets:
 * reading alone is not what an import costs.
 */
const importCsvReaderTyped: Parser = {
  name: 'Guidepost reader + typing (csvRowBatches + csvRecordTyper)',
  async parse(document) {
    let typed: ((cells: readonly string[]) => Record<string, unknown>) | undefined;
    let rows = 0;
    for await (const batch of csvRowBatches(streamOf(document))) {
      for (const row of batch) {
        if (isRecordFailure(row)) continue;
        if (typed === undefined) {
          typed = csvRecordTyper(csvColumnsOf(row));
        } else {
          typed(row.cells);
          rows += 1;
        }
      }
    }
    return rows;
  },
};

/**
 * Parse throughput (MB/s of input) of the import readers beside the baselines, on ~`bytes` of
 * generated event rows as NDJSON and the same rows as CSV. Every parser starts from the bytes (so
 * UTF-8 decoding is included everywhere); the readers get them as 64 KiB chunks of a stream, as
 * from an upload; each parser's fastest of `repeats` runs counts.
 */
export async function measureParse(settings: ParseSettings): Promise<Figure[]> {
  const documents = generateDocuments(settings.bytes);
  const ndjson = Buffer.from(documents.ndjson);
  const csv = Buffer.from(documents.csv);
  const time = (parser: Parser, document: Buffer) => fastestRun(parser, document, settings.repeats, documents.rows);

  const jsonBaseline = await time(jsonParsePerLine, ndjson);
  const ndjsonImport = await time(importNdjsonReader, ndjson);
  const ndjsonStrict = await time(strictNdjsonReader, ndjson);
  const csvBaselines = [await time(udsvStrings, csv), await time(papaparseStrings, csv)];
  const fastestCsv = csvBaselines.reduce((fastest, timing) => (timing.milliseconds < fastest.milliseconds ? timing : fastest));
  const csvImport = await time(importCsvReader, csv);
  const csvImportTyped = await time(importCsvReaderTyped, csv);

  return [
    baselineFigure(jsonBaseline, `${count(documents.rows)} rows, ${megabytes(ndjson.length)} NDJSON`),
    comparedFigure(ndjsonImport, jsonBaseline, true),
    comparedFigure(ndjsonStrict, jsonBaseline, false),
    ...csvBaselines.map((timing) => baselineFigure(timing, `same rows, ${megabytes(csv.length)} CSV`)),
    comparedFigure(csvImport, fastestCsv, true),
    comparedFigure(csvImportTyped, fastestCsv, true),
  ];
}

async function fastestRun(parser: Parser, document: Buffer, repeats: number, expectedRows: number): Promise<Timing> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < repeats; run += 1) {
    collectGarbage();
    const start = performance.now();
    const rows = await parser.parse(document);
    fastest = Math.min(fastest, performance.now() - start);
    if (rows !== expectedRows) throw new Error(`${parser.name} found ${rows} rows, expected ${expectedRows}`);
  }
  return { parser, bytes: document.length, milliseconds: fastest };
}

function baselineFigure(timing: Timing, input: string): Figure {
  return { stage: PARSE_STAGE, figure: `${timing.parser.name} (baseline; ${input})`, measured: rateOf(timing) };
}

function comparedFigure(timing: Timing, baseline: Timing, targeted: boolean): Figure {
  const ratio = baseline.milliseconds / timing.milliseconds;
  return {
    stage: PARSE_STAGE,
    figure: timing.parser.name,
    measured: rateOf(timing),
    baseline: `${baseline.parser.name}: ${rateOf(baseline)}`,
    ratio,
    ...(targeted ? { target: ratioAtLeast(ratio, TARGET_RATIO) } : {}),
  };
}

function rateOf(timing: Timing): string {
  return megabytesPerSecond(timing.bytes, timing.milliseconds);
}

/** Drains a tolerant reader, counting the records it read (a failure is not one: the row count then differs). */
async function countReadRecords(batches: AsyncIterable<readonly object[]>): Promise<number> {
  let counted = 0;
  for await (const batch of batches) {
    for (const record of batch) counted += isRecordFailure(record) ? 0 : 1;
  }
  return counted;
}

/** Drains an async iterable, counting its items. */
async function countItems(items: AsyncIterable<unknown>): Promise<number> {
  const iterator = items[Symbol.asyncIterator]();
  let counted = 0;
  while (!(await iterator.next()).done) counted += 1;
  return counted;
}

/** The document as a byte stream of 64 KiB chunks (views, not copies). */
function streamOf(document: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let start = 0; start < document.length; start += CHUNK_BYTES) chunks.push(document.subarray(start, start + CHUNK_BYTES));
  return Readable.from(chunks, { objectMode: false });
}

/** Between runs, when node runs with --expose-gc, so that one parser's garbage is not collected in the next one's time. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
