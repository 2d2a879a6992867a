import type { ExperienceUpsert, FlowUpsert, Step, StepUpsert, StudioDocumentUpsert, TagUpsert } from '@guidepost/contracts-http';
import {
  TYPED_EXPERIENCE_KINDS,
  type AuditFields,
  type ExperienceKind,
  type ExperienceRecord,
  type FlowRecord,
  type PublishableFields,
  type StudioDocumentRecord,
  type TagRecord,
} from './content-records';
import { lifecycleStateOf, publishedAtAfterWrite, type PublicationState } from './publication';
import { epochMillis, timeOfInput } from './timestamp-forms';

/**
 * How an admin upsert turns into a stored record. An upsert replaces the record's content: omitted
 * fields take their defaults, except the facts of creation (`created_at`, `created_by`), which an
 * existing record keeps, and the publish time, which follows the publish rules.
 */

/** Author of records written without `created_by` / `updated_by`. */
const DEFAULT_AUTHOR = 'guidepost-admin';
const DEFAULT_FREQUENCY = 'once';
const DEFAULT_STEP_TYPE = 'tooltip';

type AuditInput = Pick<TagUpsert, 'created_at' | 'updated_at' | 'created_by' | 'updated_by'>;
type PublishableInput = FlowUpsert | ExperienceUpsert;

/** Creation time: given, else kept from the existing record, else now; update time: given, else now. */
function timesOf(input: Pick<AuditInput, 'created_at' | 'updated_at'>, existing: { readonly createdAt: Date } | undefined, now: Date) {
  return {
    createdAt: input.created_at !== undefined ? timeOfInput(input.created_at) : (existing?.createdAt ?? now),
    updatedAt: input.updated_at !== undefined ? timeOfInput(input.updated_at) : now,
  };
}

function auditOf(input: AuditInput, existing: AuditFields | undefined, now: Date): AuditFields {
  return {
    ...timesOf(input, existing, now),
    createdBy: input.created_by ?? existing?.createdBy ?? DEFAULT_AUTHOR,
    updatedBy: input.updated_by ?? DEFAULT_AUTHOR,
  };
}

/** An explicit publish time wins; otherwise (or when null on a published record) the publish rules decide. */
function publishedAtOf(
  input: Pick<PublishableInput | StudioDocumentUpsert, 'published_at'>,
  existing: PublicationState | undefined,
  published: boolean,
  now: Date,
): Date | null {
  if (input.published_at !== undefined && input.published_at !== null) return timeOfInput(input.published_at);
  if (input.published_at === null && !published) return null;
  return publishedAtAfterWrite(existing, published, now);
}

function publishableOf(accountId: string, input: PublishableInput, existing: PublishableFields | undefined, now: Date): PublishableFields {
  const published = input.published ?? false;
  return {
    accountId,
    id: input.id,
    name: input.name,
    published,
    publishedAt: publishedAtOf(input, existing, published, now),
    frequency: input.frequency ?? DEFAULT_FREQUENCY,
    tagIds: [...new Set(input.tag_ids ?? [])],
    ...auditOf(input, existing, now),
  };
}

export function flowRecordOf(accountId: string, input: FlowUpsert, existing: FlowRecord | undefined, now: Date): FlowRecord {
  return publishableOf(accountId, input, existing, now);
}

export function experienceRecordOf(
  kind: ExperienceKind,
  accountId: string,
  input: ExperienceUpsert,
  existing: ExperienceRecord | undefined,
  now: Date,
): ExperienceRecord {
  const publishable = publishableOf(accountId, input, existing, now);
  return {
    ...publishable,
    kind,
    appId: input.app_id ?? accountId,
    state: lifecycleStateOf(publishable.published, input.state),
    platform: input.platform ?? TYPED_EXPERIENCE_KINDS[kind].defaultPlatform,
    type: input.type ?? TYPED_EXPERIENCE_KINDS[kind].defaultType,
    previewUrl: input.preview_url ?? null,
    lockedForLocalization: input.locked_for_localization ?? false,
    theme: input.theme ?? null,
    traits: input.traits ?? [],
    steps: (input.steps ?? []).map((step, position) => stepOf(step, position, publishable)),
  };
}

/** A step in its stored (public) form; omitted fields default to the record's own audit fields. */
function stepOf(input: StepUpsert, position: number, record: AuditFields): Step {
  const millisOf = (value: string | number | undefined, fallback: Date) => epochMillis(value !== undefined ? timeOfInput(value) : fallback);
  return {
    id: input.id,
    index: input.index ?? position,
    name: input.name ?? null,
    type: input.type ?? DEFAULT_STEP_TYPE,
    parentId: input.parentId ?? null,
    children: input.children ?? [],
    actions: input.actions ?? {},
    content: input.content ?? null,
    contentType: input.contentType ?? null,
    rows: input.rows ?? [],
    traits: input.traits ?? [],
    createdAt: millisOf(input.createdAt, record.createdAt),
    updatedAt: millisOf(input.updatedAt, record.updatedAt),
    createdBy: input.createdBy ?? record.createdBy,
    updatedBy: input.updatedBy ?? record.updatedBy,
  };
}

/** The fields of a studio document that Guidepost manages or derives, and so never keeps in the document. */
const NOT_THE_STUDIOS = new Set<string>([
  'id',
  'published',
  'published_at',
  'state',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'url',
]);

/**
 * A studio document as stored: the managed fields are taken out of the document and follow the same
 * rules as a pin's (publish time, lifecycle label, creation facts kept, authors defaulted); the derived `url` is
 * dropped; everything else is kept exactly as given.
 */
export function studioDocumentRecordOf(
  kind: string,
  accountId: string,
  input: StudioDocumentUpsert,
  existing: StudioDocumentRecord | undefined,
  now: Date,
): StudioDocumentRecord {
  const published = input.published ?? false;
  return {
    accountId,
    kind,
    id: input.id,
    name: input.name,
    published,
    publishedAt: publishedAtOf(input, existing, published, now),
    state: lifecycleStateOf(published, input.state),
    ...auditOf(input, existing, now),
    document: Object.fromEntries(Object.entries(input).filter(([field]) => !NOT_THE_STUDIOS.has(field))),
  };
}

export function tagRecordOf(accountId: string, input: TagUpsert, existing: TagRecord | undefined, now: Date): TagRecord {
  return { accountId, id: input.id, name: input.name, ...auditOf(input, existing, now) };
}
