import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import {
  auditInput,
  epochMillis,
  ExperienceSchema,
  lifecycleLabel,
  lifecycleLabelInput,
  resourceUrl,
  timestampInput,
} from './content.schema';

/**
 * The experience kinds: each is a resource of its own under `/v2/accounts/{account_id}/{collection}`
 * (list, get, publish, unpublish) that the admin API upserts with `PUT /admin/v1/accounts/{account_id}/{collection}`.
 * The content service (its controllers and storage), the gateway's routing, the admin CLI and the
 * OpenAPI document are all derived from `EXPERIENCE_KINDS`, so adding a kind is one line there.
 */

/**
 * How the content service keeps a kind's records:
 * - `experience`: the typed record of `ExperienceSchema` (pins and mobile), omitted fields defaulted when written;
 * - `studio-document`: the web studio's document as it was given (unknown fields included), with the
 *   managed fields (`id`, `published`, `published_at`, `state`, `created_at`, `updated_at`, `created_by`,
 *   `updated_by`) Guidepost's and `url` derived.
 */
export type ExperienceRecordModel = 'experience' | 'studio-document';

export interface ExperienceKindDefinition {
  /** The path segment of the kind. */
  readonly collection: string;
  /** A record and several, in prose: `mobile experience`, `mobile experiences` (summaries, errors, OpenAPI tags and operation ids). */
  readonly nouns: readonly [singular: string, plural: string];
  /** The record's path parameter in the OpenAPI document. */
  readonly parameter: string;
  readonly model: ExperienceRecordModel;
}

export const EXPERIENCE_KINDS = [
  { collection: 'pins', nouns: ['pin', 'pins'], parameter: 'pin_id', model: 'experience' },
  { collection: 'mobile', nouns: ['mobile experience', 'mobile experiences'], parameter: 'mobile_id', model: 'experience' },
  { collection: 'launchpads', nouns: ['launchpad', 'launchpads'], parameter: 'launchpad_id', model: 'studio-document' },
  { collection: 'banners', nouns: ['banner', 'banners'], parameter: 'banner_id', model: 'studio-document' },
  { collection: 'checklists', nouns: ['checklist', 'checklists'], parameter: 'checklist_id', model: 'studio-document' },
  { collection: 'flows-v2', nouns: ['flow (v2)', 'flows (v2)'], parameter: 'flow_v2_id', model: 'studio-document' },
  { collection: 'embeds', nouns: ['embed', 'embeds'], parameter: 'embed_id', model: 'studio-document' },
  { collection: 'nps', nouns: ['NPS survey', 'NPS surveys'], parameter: 'nps_id', model: 'studio-document' },
] as const satisfies readonly ExperienceKindDefinition[];

export type ExperienceCollection = (typeof EXPERIENCE_KINDS)[number]['collection'];

/** The kinds whose records are studio documents. */
export type StudioDocumentKind = Extract<(typeof EXPERIENCE_KINDS)[number], { model: 'studio-document' }>;

const capitalised = (noun: string) => noun.charAt(0).toUpperCase() + noun.slice(1);

/** `Mobile experience`: a record of the kind, as errors and summaries begin with it. */
export function resourceNameOf(kind: ExperienceKindDefinition): string {
  return capitalised(kind.nouns[0]);
}

/** `Mobile experiences`: the kind's tag in the OpenAPI document. */
export function tagOf(kind: ExperienceKindDefinition): string {
  return capitalised(kind.nouns[1]);
}

/** `MobileExperience` and `MobileExperiences`: the stems of the kind's operation ids. */
export function operationStemsOf(kind: ExperienceKindDefinition): readonly [singular: string, plural: string] {
  const stem = (noun: string) =>
    noun
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join('');
  return [stem(kind.nouns[0]), stem(kind.nouns[1])];
}

// ---------------------------------------------------------------------------------------------------
// Studio documents: the record as answered, and as the admin API takes it
// ---------------------------------------------------------------------------------------------------

const STUDIO_FIELDS =
  "Every other field is the web studio's (`name`, `type`, `account_id`, `app_id`, `platform`, `frequency`, `steps`, ...), " +
  'answered exactly as it was stored.';

/** The record of a studio-document kind as the public API answers it: managed fields typed, the studio's open. */
export function studioDocumentSchema(kind: StudioDocumentKind): TObject {
  const resource = resourceNameOf(kind);
  return Type.Object(
    {
      id: Type.String({ minLength: 1, description: `${resource} identifier` }),
      name: Type.String({ description: "Name (the studio's)" }),
      published: Type.Boolean({ description: 'Whether currently published' }),
      published_at: Type.Union([epochMillis('Last publish time'), Type.Null()], {
        description: 'Last publish time; null when never published (kept on unpublish)',
      }),
      state: lifecycleLabel(),
      created_at: epochMillis('Creation time'),
      updated_at: epochMillis('Last update time'),
      created_by: Type.String({ description: 'User identifier of the creator; `guidepost-admin` when the writer did not say' }),
      updated_by: Type.String({ description: 'User identifier of the last updater; `guidepost-admin` when the writer did not say' }),
      url: resourceUrl(kind.nouns[0]),
    },
    { $id: operationStemsOf(kind)[0], additionalProperties: true, description: `A ${kind.nouns[0]}. ${STUDIO_FIELDS}` },
  );
}

/** The record schema of every kind, by collection: pins and mobile share `Experience`. */
export const EXPERIENCE_RECORD_SCHEMAS: ReadonlyMap<ExperienceCollection, TSchema> = new Map(
  EXPERIENCE_KINDS.map((kind): [ExperienceCollection, TSchema] => [
    kind.collection,
    kind.model === 'experience' ? ExperienceSchema : studioDocumentSchema(kind),
  ]),
);

/**
 * A studio document to create or replace. `id` and `name` are required; the managed fields, when
 * given, set Guidepost's values (as for pins) and are not kept in the document, nor is the derived
 * `url`; every other field is kept as given.
 */
export const StudioDocumentUpsertSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Identifier' }),
    name: Type.String({ description: 'Name' }),
    published: Type.Optional(Type.Boolean({ description: 'Default false' })),
    published_at: Type.Optional(
      Type.Union([timestampInput('Last publish time'), Type.Null()], {
        description: 'Default: now when the record becomes published, else the existing value (null when never published)',
      }),
    ),
    state: lifecycleLabelInput(),
    ...auditInput,
  },
  { $id: 'StudioDocumentUpsert', additionalProperties: true, description: 'A studio document to create or replace' },
);
export type StudioDocumentUpsert = Static<typeof StudioDocumentUpsertSchema>;
