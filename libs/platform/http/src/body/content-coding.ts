import { PassThrough, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@guidepost/platform-errors';
import { payloadTooLarge } from '../errors/size-limit';

/**
 * A request body may come compressed (`Content-Encoding: gzip`, or its old name `x-gzip`) or not at
 * all (no header, or `identity`); any other coding (`br`, `deflate`, `compress`, stacked codings) is a
 * 415 naming it and what is taken. The platform's body readers decode, within the same size limits,
 * counted on the decoded bytes: a small body that inflates past the limit (a "decompression bomb") is
 * refused with 413 once the limit is passed, having never held more than the limit in memory. The
 * gateway passes bodies on unread, encoded as sent, to the service that reads them.
 */
export const ACCEPTED_CODINGS = ['identity', 'gzip'] as const;

type Coding = 'identity' | 'gzip';

const GZIP_NAMES: ReadonlySet<string> = new Set(['gzip', 'x-gzip']);

/** The coding of a request's body, or a 415 naming the one that is not taken. */
function codingOf(request: FastifyRequest): Coding {
  const header = request.headers['content-encoding'];
  const coding = (header ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return 'identity';
  if (GZIP_NAMES.has(coding)) return 'gzip';
  throw new DomainError(
    'unsupported_media_type',
    `Content-Encoding '${header}' is not supported; send the body as ${ACCEPTED_CODINGS.join(' or ')}`,
    { acceptedEncodings: ACCEPTED_CODINGS },
  );
}

const gunzipAtMost = promisify(gunzip);

/** A body read whole (JSON), decoded: at most `limit` decoded bytes, else 413. */
export async function decodedBytes(request: FastifyRequest, bytes: Buffer, limit: number): Promise<Buffer> {
  // An empty body is no body, whatever its headers say.
  if (codingOf(request) === 'identity' || bytes.length === 0) return bytes;
  try {
    // zlib stops inflating once the output would pass the limit, so a bomb costs at most `limit` bytes.
    return await gunzipAtMost(bytes, { maxOutputLength: limit });
  } catch (error) {
    if (isCode(error, 'ERR_BUFFER_TOO_LARGE')) throw payloadTooLarge('request body', limit);
    throw notGzip(error);
  }
}

/**
 * A streamed body (NDJSON, CSV, uploads), decoded as its reader pulls it: zlib inflates only what is
 * read, so the reader's own byte limit (`limitBytes`, counting decoded bytes) bounds the work, and a
 * reader that stops at its limit stops the inflating. Fails with 400 when the body is not gzip data.
 */
export function decodedStream(request: FastifyRequest, body: Readable): Readable {
  if (codingOf(request) === 'identity') return body;
  const inflating = createGunzip();
  const decoded = new PassThrough();
  inflating.on('error', (error) => decoded.destroy(notGzip(error)));
  decoded.on('close', () => {
    // The request itself is left alone: it is the client's connection, which must carry the answer.
    body.unpipe(inflating);
    inflating.destroy();
  });
  // A body refused unread (by a handler that takes no such body) must not crash the process when its
  // bytes turn out not to be gzip; a reader still gets the error.
  decoded.on('error', () => undefined);
  return body.pipe(inflating).pipe(decoded);
}

function notGzip(error: unknown): DomainError {
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('invalid_request', `body: is not gzip data, as Content-Encoding says (${reason})`);
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
