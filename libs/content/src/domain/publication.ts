/** The part of a flow, pin or mobile experience that publishing changes. */
export interface PublicationState {
  readonly published: boolean;
  /** Last publish time: set when the record becomes published, kept when it is unpublished. */
  readonly publishedAt: Date | null;
  readonly updatedAt: Date;
}

export type PublicationCommand = 'publish' | 'unpublish';

export interface PublicationOutcome<S extends PublicationState> {
  /** False when the command was harmless (already in the wanted state): nothing is to be written. */
  readonly changed: boolean;
  readonly state: S;
}

/**
 * The publish state table of the spec. Publishing an unpublished record publishes it and stamps the
 * publish time; unpublishing keeps that time, because `published_at` means "last publish time".
 * Repeating either command changes nothing, not even `updated_at`.
 */
export function applyPublication<S extends PublicationState>(current: S, command: PublicationCommand, now: Date): PublicationOutcome<S> {
  const wantPublished = command === 'publish';
  if (current.published === wantPublished) return { changed: false, state: current };
  const publishedAt = wantPublished ? now : current.publishedAt;
  return { changed: true, state: { ...current, published: wantPublished, publishedAt, updatedAt: now } };
}

/**
 * The publish time a written record ends up with when an administrator sets `published` directly:
 * the same rule as the publish commands, starting from the stored record (or a never-published one).
 */
export function publishedAtAfterWrite(existing: PublicationState | undefined, published: boolean, now: Date): Date | null {
  const before: PublicationState = existing ?? { published: false, publishedAt: null, updatedAt: now };
  return applyPublication(before, published ? 'publish' : 'unpublish', now).state.publishedAt;
}
