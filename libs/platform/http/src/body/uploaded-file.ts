import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { DomainError } from '@guidepost/platform-errors';
import type { SizeLimits } from '../errors/problem';
import { chunksOf, limitBytes } from './byte-limit';
import type { InboundBody, RecordFormat } from './inbound-body';
import { boundaryOf, MultipartReader, type PartHeaders } from './multipart';

/** The form field an upload must use. */
export const FILE_FIELD = 'file';

const FORMAT_OF_EXTENSION: Readonly<Record<string, RecordFormat>> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'ndjson',
};

const FORMAT_OF_MIME_TYPE: Readonly<Record<string, RecordFormat>> = {
  'text/csv': 'csv',
  'application/ndjson': 'ndjson',
  'application/x-ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/json': 'ndjson',
};

/**
 * The records of the multipart part named `file` (whatever its disposition: `form-data` from browsers
 * and libraries, `attachment` from curl under `multipart/mixed`), as a stream limited to
 * `fileLimitBytes`. The other parts are skipped; together they may hold up to `bodyLimitBytes`. The
 * format comes from the file name's extension, else its declared type, else its first non-blank
 * character (`{` or `"` means NDJSON, anything else CSV). The stream ends only once the whole body
 * is read: a second `file` part, or framing cut short, fails it with 400, so a handler never acts on
 * half of what was sent.
 */
export async function uploadedRecords(body: Readable, contentType: string | undefined, limits: SizeLimits): Promise<InboundBody> {
  const reader = new MultipartReader(body, boundaryOf(contentType), limits.bodyLimitBytes);
  const part = await filePartOf(reader);
  if (!part) throw new DomainError('invalid_request', `${FILE_FIELD}: is required (upload the records as the form field '${FILE_FIELD}')`);
  const stream = limitBytes(Readable.from(fileThenTheRest(reader), { objectMode: false }), limits.fileLimitBytes, 'file');
  const declared = formatFromName(part) ?? (part.mediaType === undefined ? undefined : FORMAT_OF_MIME_TYPE[part.mediaType]);
  if (declared) return { kind: 'records', format: declared, origin: 'file', stream };
  return { kind: 'records', origin: 'file', ...(await sniffFormat(stream)) };
}

/** Skips (and drains) parts until the one named `file`. */
async function filePartOf(reader: MultipartReader): Promise<PartHeaders | undefined> {
  for (let part = await reader.nextPart(); part !== undefined; part = await reader.nextPart()) {
    if (part.name === FILE_FIELD) return part;
    await reader.skipBody();
  }
  return undefined;
}

/** The file's bytes, then the rest of the body read through, so that the stream's end means the upload's. */
async function* fileThenTheRest(reader: MultipartReader): AsyncGenerator<Buffer> {
  yield* reader.body();
  for (let part = await reader.nextPart(); part !== undefined; part = await reader.nextPart()) {
    if (part.name === FILE_FIELD) {
      throw new DomainError('invalid_request', `${FILE_FIELD}: was sent more than once; upload one file per request`);
    }
    await reader.skipBody();
  }
}

function formatFromName(part: PartHeaders): RecordFormat | undefined {
  return part.filename ? FORMAT_OF_EXTENSION[extname(part.filename).toLowerCase()] : undefined;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/** Reads up to the first non-blank byte, then hands back a stream that still starts at the beginning. */
async function sniffFormat(stream: Readable): Promise<{ format: RecordFormat; stream: Readable }> {
  const chunks = chunksOf(stream)[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const next = await chunks.next();
    if (next.done) break;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    seen.push(chunk);
    first = firstNonBlankByte(chunk, seen.length === 1);
  }
  async function* replayed(): AsyncGenerator<Buffer | string> {
    yield* seen;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const format: RecordFormat = first === 0x7b || first === 0x22 ? 'ndjson' : 'csv';
  return { format, stream: Readable.from(replayed(), { objectMode: false }) };
}

function firstNonBlankByte(chunk: Buffer, isFirstChunk: boolean): number | undefined {
  let at = isFirstChunk && BYTE_ORDER_MARK.every((byte, index) => chunk[index] === byte) ? BYTE_ORDER_MARK.length : 0;
  while (at < chunk.length && WHITESPACE.has(chunk[at])) at += 1;
  return at < chunk.length ? chunk[at] : undefined;
}
