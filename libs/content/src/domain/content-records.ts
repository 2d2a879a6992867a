import type { Step } from '@guidepost/contracts-http';

/** Who made and last changed a record, and when. */
export interface AuditFields {
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly createdBy: string;
  readonly updatedBy: string;
}

/** The stored fields of records that can be published (flows, pins, mobile experiences). */
export interface PublishableFields extends AuditFields {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
  readonly published: boolean;
  readonly publishedAt: Date | null;
  readonly frequency: string;
  /** The only stored form of the record's tags; the public `tags` map is derived from it. */
  readonly tagIds: string[];
}

export type FlowRecord = PublishableFields;

/** Pins and mobile experiences: one record shape, told apart by `kind`. */
export interface ExperienceRecord extends PublishableFields {
  readonly kind: ExperienceKind;
  readonly appId: string;
  /** The lifecycle label, `PUBLISHED` exactly while published (`lifecycleStateOf`). */
  readonly state: string;
  readonly platform: string;
  readonly type: string;
  readonly previewUrl: string | null;
  readonly lockedForLocalization: boolean;
  readonly theme: string | null;
  readonly traits: Record<string, unknown>[];
  /** Stored in their public form (times in milliseconds), normalised when written. */
  readonly steps: Step[];
}

export interface TagRecord extends AuditFields {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
}

/**
 * A record of a studio-document kind (launchpads, banners, checklists, ...; `EXPERIENCE_KINDS` of
 * contracts-http): the studio's document kept as it was given, beside the fields Guidepost manages.
 */
export interface StudioDocumentRecord extends AuditFields {
  readonly accountId: string;
  /** The kind's collection (path segment). */
  readonly kind: string;
  readonly id: string;
  /** The document's `name`, kept beside it so that lists are ordered by name, then id. */
  readonly name: string;
  readonly published: boolean;
  readonly publishedAt: Date | null;
  /** The lifecycle label, `PUBLISHED` exactly while published (`lifecycleStateOf`). */
  readonly state: string;
  /** Every field the studio sent except the managed ones (`id`, `published`, `published_at`, `state`, the audit fields) and the derived `url`. */
  readonly document: Record<string, unknown>;
}

/** The kinds kept as typed experience records (the `experience` model of `EXPERIENCE_KINDS`). */
export type ExperienceKind = 'pin' | 'mobile';

/** What tells a pin from a mobile experience: its path, its name in errors and its defaults. */
export interface ExperienceKindTraits {
  readonly collection: 'pins' | 'mobile';
  readonly resourceName: string;
  readonly defaultPlatform: string;
  readonly defaultType: string;
}

export const TYPED_EXPERIENCE_KINDS: Readonly<Record<ExperienceKind, ExperienceKindTraits>> = {
  pin: { collection: 'pins', resourceName: 'Pin', defaultPlatform: 'web', defaultType: 'persistent' },
  mobile: { collection: 'mobile', resourceName: 'Mobile experience', defaultPlatform: 'ios', defaultType: 'mobile' },
};

/** The typed experience kind served at `/{collection}`; a kind of the `experience` model needs its defaults here. */
export function typedExperienceKindAt(collection: string): ExperienceKind {
  const kinds = Object.keys(TYPED_EXPERIENCE_KINDS) as ExperienceKind[];
  const kind = kinds.find((candidate) => TYPED_EXPERIENCE_KINDS[candidate].collection === collection);
  if (kind === undefined) throw new Error(`/${collection} is of the experience model but has no defaults in TYPED_EXPERIENCE_KINDS`);
  return kind;
}
