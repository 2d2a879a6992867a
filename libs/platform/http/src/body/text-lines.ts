import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { DomainError } from '../errors/domain-error';
import { describeSize } from '../errors/size-limit';
import { chunksOf } from './byte-limit';

/**
 * The longest single record (NDJSON line or CSV row) a reader holds in memory. Records are read one
 * at a time so that 200 MB files stay cheap; a "record" that grows past this is a missing newline or
 * an unterminated quote, not data.
 */
export const MAX_RECORD_CHARS = 1024 * 1024;

const BYTE_ORDER_MARK = 0xfeff;

/** UTF-8 text of a stream, chunk by chunk (characters split across chunks kept whole, BOM dropped). */
export async function* textOf(stream: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let atStart = true;
  for await (const chunk of chunksOf(stream)) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (atStart && text.length > 0) {
      if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
      atStart = false;
    }
    if (text.length > 0) yield text;
  }
  const rest = decoder.end();
  if (rest.length > 0) yield rest;
}

export function recordTooLong(line: number): DomainError {
  return new DomainError(
    'invalid_request',
    `line ${line}: record is longer than ${describeSize(MAX_RECORD_CHARS)} (missing line break or unterminated quote?)`,
  );
}
