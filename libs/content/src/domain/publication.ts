import { InvalidField } from '@guidepost/platform-errors';

/**
 * The lifecycle label (`state`) of a published record. Every experience kind has a label, and it reads
 * `PUBLISHED` exactly while the record is published, so that a client never sees `published: false`
 * beside `state: "PUBLISHED"` (flows have no label).
 */
export const PUBLISHED_STATE = 'PUBLISHED';
/** The label of an unpublished record that has none of its own: written without one, or just unpublished. */
export const DRAFT_STATE = 'DRAFT';

/** The part of a flow, pin, mobile experience or studio document that publishing changes. */
export interface PublicationState {
  readonly published: boolean;
  /** Last publish time: set when the record becomes published, kept when it is unpublished. */
  readonly publishedAt: Date | null;
  readonly updatedAt: Date;
  /** The lifecycle label of the kinds that have one, kept in step with `published` (`lifecycleStateOf`). */
  readonly state?: string;
}

export type PublicationCommand = 'publish' | 'unpublish';

export interface PublicationOutcome<S extends PublicationState> {
  /** False when the command was harmless (already in the wanted state): nothing is to be written. */
  readonly changed: boolean;
  readonly record: S;
}

/**
 * The label a record has once it is published or not: `PUBLISHED` while published; an unpublished
 * record keeps a label of its own (`DRAFT`, `ARCHIVED`, ...), and gets `DRAFT` in place of
 * `PUBLISHED` or of none.
 */
export function lifecycleStateOf(published: boolean, label: string | undefined): string {
  if (published) return PUBLISHED_STATE;
  return label === undefined || label === PUBLISHED_STATE ? DRAFT_STATE : label;
}

/**
 * The publish state table of the spec. Publishing an unpublished record publishes it and stamps the
 * publish time; unpublishing keeps that time, because `published_at` means "last publish time". A
 * record with a lifecycle label moves it along (`lifecycleStateOf`). Repeating either command changes
 * nothing, not even `updated_at`.
 */
export function applyPublication<S extends PublicationState>(current: S, command: PublicationCommand, now: Date): PublicationOutcome<S> {
  const wantPublished = command === 'publish';
  if (current.published === wantPublished) return { changed: false, record: current };
  const publishedAt = wantPublished ? now : current.publishedAt;
  const record = { ...current, published: wantPublished, publishedAt, updatedAt: now };
  if (current.state === undefined) return { changed: true, record };
  return { changed: true, record: { ...record, state: lifecycleStateOf(wantPublished, current.state) } };
}

/**
 * The publish time a written record ends up with when an administrator sets `published` directly:
 * the same rule as the publish commands, starting from the stored record (or a never-published one).
 */
export function publishedAtAfterWrite(existing: PublicationState | undefined, published: boolean, now: Date): Date | null {
  const before: PublicationState = existing ?? { published: false, publishedAt: null, updatedAt: now };
  return applyPublication(before, published ? 'publish' : 'unpublish', now).record.publishedAt;
}

/**
 * Refuses a written record whose label contradicts its `published` flag (omitted: false), naming the
 * field, instead of storing a record that reads published one way and the other.
 */
export function assertStateFollowsPublished(input: { readonly published?: boolean; readonly state?: string }): void {
  const published = input.published ?? false;
  if (input.state === undefined || (input.state === PUBLISHED_STATE) === published) return;
  const reason = published
    ? `must be ${PUBLISHED_STATE} (or left out) when published is true, not '${input.state}'`
    : `can be ${PUBLISHED_STATE} only when published is true`;
  throw new InvalidField({ field: 'state', reason });
}
