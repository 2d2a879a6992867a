import type { Readable } from 'node:stream';
import { DomainError } from '@guidepost/platform-errors';
import { payloadTooLarge } from '../errors/size-limit';
import { chunksOf } from './byte-limit';

/** What a part's headers say about it. */
export interface PartHeaders {
  /** The `name` of its `Content-Disposition` (`file`), whatever the disposition type. */
  readonly name: string | undefined;
  readonly filename: string | undefined;
  /** The part's media type, lower case, without parameters. */
  readonly mediaType: string | undefined;
}

/** The longest header section of one part: names and a file name, never data. */
const MAX_PART_HEADER_BYTES = 16 * 1024;
/** RFC 2046 allows 70 characters; a little slack for clients that exceed it. */
const MAX_BOUNDARY_LENGTH = 200;

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Reads a multipart body (RFC 2046: `multipart/form-data` as browsers and most libraries send it, and
 * `multipart/mixed` as the spec names it) part by part as the bytes arrive; a part's body is handed out
 * in chunks, never held whole. Its own reader rather than busboy's: busboy skips every part whose
 * `Content-Disposition` is not `form-data`, and curl, told `-H 'Content-Type: multipart/mixed' -F
 * file=@x.csv`, sends `Content-Disposition: attachment; name="file"; filename="x.csv"`. Here a part is
 * known by its `name` alone. Framing that breaks off (no closing boundary) is a 400, not a short file.
 *
 * Use: `nextPart()`, then read (or `skipBody()`) that part's `body()` before asking for the next.
 */
export class MultipartReader {
  private readonly chunks: AsyncIterator<Buffer | string>;
  /** `CRLF--boundary`: what ends every part. */
  private readonly delimiter: Buffer;
  /**
   * Bytes read but not handed out yet. The body is read as if it began with a line break, so that a
   * first boundary at the very start looks like every other one.
   */
  private held: Buffer = CRLF;
  private state: 'preamble' | 'after-delimiter' | 'body' | 'done' = 'preamble';
  /** Bytes of the parts not handed to the caller (other form fields, headers), held to `otherBytesLimit`. */
  private otherBytes = 0;

  constructor(
    source: Readable,
    boundary: string,
    private readonly otherBytesLimit: number,
  ) {
    this.chunks = chunksOf(source)[Symbol.asyncIterator]();
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** The headers of the next part, or undefined after the closing boundary. */
  async nextPart(): Promise<PartHeaders | undefined> {
    if (this.state === 'body') await this.skipBody();
    if (this.state === 'preamble') await this.skipPreamble();
    if (this.state === 'done') return undefined;
    // Right after a boundary: `--` closes the body; otherwise optional blanks, a line break, the headers.
    await this.hold(2);
    if (this.held[0] === DASH && this.held[1] === DASH) {
      this.state = 'done';
      return undefined;
    }
    const headerEnd = await this.find(HEADER_END, MAX_PART_HEADER_BYTES, "a part's headers are not followed by an empty line");
    const lineEnd = this.held.indexOf(CRLF);
    for (let at = 0; at < lineEnd; at += 1) {
      if (this.held[at] !== SPACE && this.held[at] !== TAB) throw malformed('a boundary is followed by text on its line');
    }
    const headers = partHeadersOf(this.held.toString('utf8', lineEnd + CRLF.length, headerEnd));
    this.count(headerEnd + HEADER_END.length);
    this.held = this.held.subarray(headerEnd + HEADER_END.length);
    this.state = 'body';
    return headers;
  }

  /** The current part's bytes, chunk by chunk, up to the boundary that ends it. */
  async *body(): AsyncGenerator<Buffer> {
    if (this.state !== 'body') return;
    // The last bytes may be the start of a boundary cut by the chunk's end: they wait for the next chunk.
    const keep = this.delimiter.length - 1;
    for (;;) {
      const at = this.held.indexOf(this.delimiter);
      if (at !== -1) {
        const last = this.held.subarray(0, at);
        this.held = this.held.subarray(at + this.delimiter.length);
        this.state = 'after-delimiter';
        if (last.length > 0) yield last;
        return;
      }
      if (this.held.length > keep) {
        const ready = this.held.subarray(0, this.held.length - keep);
        this.held = this.held.subarray(this.held.length - keep);
        yield ready;
      }
      if (!(await this.read())) throw malformed('it ends before the closing boundary (the upload was cut short?)');
    }
  }

  /** Reads past the current part, counting its bytes against the limit of what is not the file. */
  async skipBody(): Promise<void> {
    for await (const chunk of this.body()) this.count(chunk.length);
  }

  /** Discards everything up to the first boundary. */
  private async skipPreamble(): Promise<void> {
    for (;;) {
      const at = this.held.indexOf(this.delimiter);
      if (at !== -1) {
        this.count(at + this.delimiter.length);
        this.held = this.held.subarray(at + this.delimiter.length);
        this.state = 'after-delimiter';
        return;
      }
      const keep = this.delimiter.length - 1;
      if (this.held.length > keep) {
        this.count(this.held.length - keep);
        this.held = this.held.subarray(this.held.length - keep);
      }
      if (!(await this.read())) throw malformed('it has no part (no boundary line as its Content-Type announces)');
    }
  }

  /** Reads until `held` has `bytes` bytes. */
  private async hold(bytes: number): Promise<void> {
    while (this.held.length < bytes) {
      if (!(await this.read())) throw malformed('it ends before the closing boundary (the upload was cut short?)');
    }
  }

  /** Reads until `held` contains `search` within its first `limit` bytes; where it starts. */
  private async find(search: Buffer, limit: number, problem: string): Promise<number> {
    for (;;) {
      const at = this.held.indexOf(search);
      if (at !== -1 && at <= limit) return at;
      if (this.held.length > limit + search.length) throw malformed(problem);
      if (!(await this.read())) throw malformed('it ends before the closing boundary (the upload was cut short?)');
    }
  }

  /** One more chunk into `held`; false at the end of the body. */
  private async read(): Promise<boolean> {
    const next = await this.chunks.next().catch((error: unknown) => {
      throw new DomainError(
        'invalid_request',
        `body: could not be read to its end (${error instanceof Error ? error.message : String(error)})`,
      );
    });
    if (next.done) return false;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    this.held = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    return true;
  }

  private count(bytes: number): void {
    this.otherBytes += bytes;
    if (this.otherBytes > this.otherBytesLimit) throw payloadTooLarge('request body', this.otherBytesLimit);
  }
}

function malformed(problem: string): DomainError {
  return new DomainError('invalid_request', `body: is not valid multipart data (${problem})`);
}

/** The `boundary` parameter of a multipart Content-Type; a 400 when there is none. */
export function boundaryOf(contentType: string | undefined): string {
  const boundary = contentType === undefined ? undefined : parametersOf(contentType).get('boundary');
  if (boundary === undefined || boundary.length === 0 || boundary.length > MAX_BOUNDARY_LENGTH) {
    throw new DomainError(
      'invalid_request',
      `Content-Type: a multipart body needs a boundary parameter of 1 to ${MAX_BOUNDARY_LENGTH} characters`,
    );
  }
  return boundary;
}

function partHeadersOf(text: string): PartHeaders {
  let disposition: Map<string, string> | undefined;
  let mediaType: string | undefined;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') disposition = parametersOf(value);
    else if (name === 'content-type') mediaType = value.split(';', 1)[0].trim().toLowerCase() || undefined;
  }
  return { name: disposition?.get('name'), filename: disposition?.get('filename*') ?? disposition?.get('filename'), mediaType };
}

/** `; name=value` and `; name="quoted \"value\""` parameters of a header value, names in lower case. */
const PARAMETER = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;

function parametersOf(value: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const [, name, quoted, bare] of value.matchAll(PARAMETER)) {
    const key = name.toLowerCase();
    const text = quoted === undefined ? bare.trim() : quoted.replace(/\\(.)/g, '$1');
    parameters.set(key, key.endsWith('*') ? extendedValue(text) : text);
  }
  return parameters;
}

/** RFC 8187 `UTF-8''x%20y.csv` (what `filename*` holds), as text; the raw value when it is not that. */
function extendedValue(text: string): string {
  const match = /^utf-8'[^']*'(.*)$/i.exec(text);
  if (!match) return text;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}
