import { isAscii, isUtf8 } from 'node:buffer';

/** Where a chunk's whole characters lie once it is known to be UTF-8. */
interface CheckedChunk {
  /** The character the previous chunk ended in the middle of, completed by this chunk's first bytes. */
  readonly completed: Buffer | undefined;
  readonly from: number;
  readonly end: number;
  readonly ascii: boolean;
}

const EMPTY = Buffer.alloc(0);
const BOM = 0xfeff;

/**
 * The UTF-8 text of a byte stream, chunk by chunk: each chunk is validated without making strings
 * (`isAscii`, `isUtf8`), then decoded without validating again; a character cut at the end of a chunk
 * waits for the next one, and a leading byte order mark is dropped. Invalid bytes are found in the
 * chunk that holds them (a cut character as soon as a byte cannot continue it), as a fatal
 * `TextDecoder` would find them, at a fraction of its cost.
 */
export class Utf8Chunks {
  /** The first bytes of a character the last chunk ended in the middle of (a valid start, at most three). */
  private unfinished: Buffer = EMPTY;
  /** No text handed out yet: a byte order mark would still be dropped. */
  private atStart = true;

  /** Whether `bytes` continue the stream as UTF-8 (to check a stream without decoding it). */
  check(bytes: Buffer): boolean {
    return this.advance(bytes) !== undefined;
  }

  /** The text of `bytes` (with the character the chunk before left unfinished), or undefined when they are not UTF-8. */
  decode(bytes: Buffer): string | undefined {
    const checked = this.advance(bytes);
    if (checked === undefined) return undefined;
    const { completed, from, end, ascii } = checked;
    // Pure ASCII is copied as one-byte text, the cheapest string V8 makes.
    let text = bytes.toString(ascii ? 'latin1' : 'utf8', from, end);
    if (completed !== undefined) text = completed.toString('utf8') + text;
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    return text;
  }

  /** Whether the stream, ended here, ends in the middle of a character. */
  endsInsideCharacter(): boolean {
    return this.unfinished.length > 0;
  }

  /** The text of the valid UTF-8 that the stream holds from the last chunk accepted up to the first invalid byte of `bytes`. */
  textBeforeInvalidBytes(bytes: Buffer): string {
    const held = this.unfinished.length > 0 ? Buffer.concat([this.unfinished, bytes]) : bytes;
    let at = 0;
    while (at < held.length) {
      const length = sequenceLength(held[at]);
      if (length === 0 || at + length > held.length || !validStart(held, at, length)) break;
      at += length;
    }
    const text = held.toString('utf8', 0, at);
    return this.atStart && text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }

  /** Validates `bytes` and moves past them; undefined (and nothing moved) when they are not UTF-8. */
  private advance(bytes: Buffer): CheckedChunk | undefined {
    let completed: Buffer | undefined;
    let from = 0;
    if (this.unfinished.length > 0) {
      const missing = sequenceLength(this.unfinished[0]) - this.unfinished.length;
      if (bytes.length < missing) {
        const longer = Buffer.concat([this.unfinished, bytes]);
        if (!validStart(longer, 0, longer.length)) return undefined;
        this.unfinished = longer;
        return { completed: undefined, from: 0, end: 0, ascii: true };
      }
      completed = Buffer.concat([this.unfinished, bytes.subarray(0, missing)]);
      if (!validStart(completed, 0, completed.length)) return undefined;
      from = missing;
    }
    const end = wholeCharactersEnd(bytes, from);
    const whole = bytes.subarray(from, end);
    const ascii = isAscii(whole);
    if (!ascii && !isUtf8(whole)) return undefined;
    this.unfinished = end < bytes.length ? Buffer.from(bytes.subarray(end)) : EMPTY;
    return { completed, from, end, ascii };
  }
}

/**
 * Where the whole characters of `bytes` (from `from` on) end: before a last character the chunk cuts
 * off, when what it holds of it is a valid start; otherwise at the end, so that validation fails here.
 */
function wholeCharactersEnd(bytes: Buffer, from: number): number {
  const floor = Math.max(from, bytes.length - 4);
  let lead = bytes.length - 1;
  while (lead > floor && (bytes[lead] & 0xc0) === 0x80) lead -= 1;
  if (lead < from) return bytes.length;
  const available = bytes.length - lead;
  return available < sequenceLength(bytes[lead]) && validStart(bytes, lead, available) ? lead : bytes.length;
}

/** Bytes in a UTF-8 sequence by its first byte (0 for a byte that cannot start one). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Whether the `length` bytes at `at` are (the start of) one well-formed UTF-8 character: no overlong
 * forms, no surrogates, nothing past U+10FFFF.
 */
function validStart(bytes: Buffer, at: number, length: number): boolean {
  const lead = bytes[at];
  if (sequenceLength(lead) < length || sequenceLength(lead) === 0) return false;
  for (let next = at + 1; next < at + length; next += 1) if ((bytes[next] & 0xc0) !== 0x80) return false;
  if (length < 2) return true;
  const second = bytes[at + 1];
  if (lead === 0xe0) return second >= 0xa0;
  if (lead === 0xed) return second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90;
  if (lead === 0xf4) return second <= 0x8f;
  return true;
}
