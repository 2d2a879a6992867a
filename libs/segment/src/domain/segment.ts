import { randomBytes } from 'node:crypto';

/** A segment as this service keeps it; the public shape adds the `url` and renders the timestamps. */
export interface SegmentRecord {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly createdBy: string;
  readonly updatedBy: string;
}

export interface SegmentChanges {
  readonly name?: string;
  readonly description?: string;
}

/**
 * Who wrote a segment. The gateway authenticates the API key before routing and does not pass it on,
 * so every segment written through the public API records this origin instead of a key.
 */
export const API_ACTOR = 'api';

const SEGMENT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** A new segment id: 24 random hexadecimal characters (96 bits). */
export function newSegmentId(): string {
  return randomBytes(12).toString('hex');
}

/** Only this service mints segment ids, so a value of another shape names no segment and needs no lookup. */
export function isSegmentId(value: string): boolean {
  return SEGMENT_ID_PATTERN.test(value);
}

export function newSegment(accountId: string, fields: SegmentChanges & { readonly name: string }, now: Date): SegmentRecord {
  return {
    accountId,
    id: newSegmentId(),
    name: fields.name,
    description: fields.description ?? '',
    createdAt: now,
    updatedAt: now,
    createdBy: API_ACTOR,
    updatedBy: API_ACTOR,
  };
}

/**
 * Applies an update. `updated_at` always moves strictly forward, even when two writes fall in the same
 * millisecond (or the clock steps back), so that a client can tell that the segment changed.
 */
export function updateSegment(segment: SegmentRecord, changes: SegmentChanges, now: Date): SegmentRecord {
  const updatedAt = new Date(Math.max(now.getTime(), segment.updatedAt.getTime() + 1));
  return {
    ...segment,
    name: changes.name ?? segment.name,
    description: changes.description ?? segment.description,
    updatedAt,
    updatedBy: API_ACTOR,
  };
}
