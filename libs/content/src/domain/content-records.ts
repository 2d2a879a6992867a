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

export type ExperienceKind = 'pin' | 'mobile';

/** What tells a pin from a mobile experience: its path, its name in errors and its defaults. */
export interface ExperienceKindTraits {
  readonly collection: 'pins' | 'mobile';
  readonly resourceName: string;
  readonly defaultPlatform: string;
  readonly defaultType: string;
}

export const EXPERIENCE_KINDS: Readonly<Record<ExperienceKind, ExperienceKindTraits>> = {
  pin: { collection: 'pins', resourceName: 'Pin', defaultPlatform: 'web', defaultType: 'persistent' },
  mobile: { collection: 'mobile', resourceName: 'Mobile experience', defaultPlatform: 'ios', defaultType: 'mobile' },
};
