import { extname } from 'node:path';
import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';
import { chunksOf, limitBytes } from './byte-limit';
import type { InboundBody, RecordFormat } from './inbound-body';

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
 * The records of the multipart part named `file`, as a stream limited to `fileLimitBytes`. The
 * format comes from the file name's extension, else its declared type, else its first non-blank
 * character (`{` or `"` means NDJSON, anything else CSV).
 */
export async function uploadedRecords(request: FastifyRequest, fileLimitBytes: number): Promise<InboundBody> {
  const part = await filePartOf(request);
  if (!part) throw new DomainError('invalid_request', `${FILE_FIELD}: is required (upload the records as the form field '${FILE_FIELD}')`);
  const stream = limitBytes(part.file, fileLimitBytes, 'file');
  const declared = formatFromName(part) ?? FORMAT_OF_MIME_TYPE[part.mimetype.toLowerCase()];
  if (declared) return { kind: 'records', format: declared, origin: 'file', stream };
  return { kind: 'records', origin: 'file', ...(await sniffFormat(stream)) };
}

/** Skips (and drains) parts until the one named `file`; malformed multipart framing is a 400. */
async function filePartOf(request: FastifyRequest): Promise<MultipartFile | undefined> {
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname === FILE_FIELD) return part;
      part.file.resume();
    }
    return undefined;
  } catch (error) {
    // @fastify/multipart's own errors carry their status (413 for limits); busboy's parse errors do not.
    if (error instanceof Error && !('statusCode' in error)) {
      throw new DomainError('invalid_request', `body: is not valid multipart data (${error.message})`);
    }
    throw error;
  }
}

function formatFromName(part: MultipartFile): RecordFormat | undefined {
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
