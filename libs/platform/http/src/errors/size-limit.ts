import { DomainError } from '@guidepost/platform-errors';

const MEGABYTE = 1024 * 1024;
const KILOBYTE = 1024;

/** A byte count as people write limits: `20 MB`, `200 MB`, `64 KB`, `1500 bytes`. */
export function describeSize(bytes: number): string {
  if (bytes >= MEGABYTE && bytes % MEGABYTE === 0) return `${bytes / MEGABYTE} MB`;
  if (bytes >= KILOBYTE && bytes % KILOBYTE === 0) return `${bytes / KILOBYTE} KB`;
  return `${bytes} bytes`;
}

/** What is too large: the request body as a whole, or the uploaded file. */
export type SizedThing = 'request body' | 'file';

export function payloadTooLarge(thing: SizedThing, limitBytes: number): DomainError {
  return new DomainError('payload_too_large', `${thing} exceeds the ${describeSize(limitBytes)} limit`);
}
