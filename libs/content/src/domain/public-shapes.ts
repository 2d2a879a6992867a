import type { Experience, Flow, Tag } from '@guidepost/contracts-http';
import {
  TYPED_EXPERIENCE_KINDS,
  type ExperienceRecord,
  type FlowRecord,
  type StudioDocumentRecord,
  type TagRecord,
} from './content-records';
import { epochMillis, flowTimestamp, isoTimestamp } from './timestamp-forms';

/** The `tags` map of the public records: every tag id as a key with the value `true`. */
export function tagMap(tagIds: readonly string[]): Record<string, true> {
  return Object.fromEntries(tagIds.map((tagId) => [tagId, true] as const));
}

/** `${baseUrl}/v2/accounts/{account}/{collection}/{id}`; the id is encoded because it is chosen by admins. */
export function resourceUrl(baseUrl: string, accountId: string, collection: string, id: string): string {
  return `${baseUrl}/v2/accounts/${encodeURIComponent(accountId)}/${collection}/${encodeURIComponent(id)}`;
}

export function toPublicFlow(record: FlowRecord, baseUrl: string): Flow {
  return {
    id: record.id,
    name: record.name,
    published: record.published,
    frequency: record.frequency,
    tag_ids: record.tagIds,
    tags: tagMap(record.tagIds),
    created_at: flowTimestamp(record.createdAt),
    updated_at: flowTimestamp(record.updatedAt),
    published_at: record.publishedAt ? flowTimestamp(record.publishedAt) : null,
    created_by: record.createdBy,
    updated_by: record.updatedBy,
    url: resourceUrl(baseUrl, record.accountId, 'flows', record.id),
  };
}

export function toPublicExperience(record: ExperienceRecord, baseUrl: string): Experience {
  return {
    id: record.id,
    account_id: record.accountId,
    app_id: record.appId,
    name: record.name,
    published: record.published,
    published_at: record.publishedAt ? epochMillis(record.publishedAt) : null,
    state: record.state,
    frequency: record.frequency,
    platform: record.platform,
    type: record.type,
    preview_url: record.previewUrl,
    locked_for_localization: record.lockedForLocalization,
    theme: record.theme,
    tag_ids: record.tagIds,
    tags: tagMap(record.tagIds),
    traits: record.traits,
    steps: record.steps,
    created_at: epochMillis(record.createdAt),
    updated_at: epochMillis(record.updatedAt),
    created_by: record.createdBy,
    updated_by: record.updatedBy,
    url: resourceUrl(baseUrl, record.accountId, TYPED_EXPERIENCE_KINDS[record.kind].collection, record.id),
  };
}

/** A studio document as answered: its id, the studio's fields as given, then the managed fields (times in milliseconds, as pins). */
export type PublicStudioDocument = Record<string, unknown>;

export function toPublicStudioDocument(record: StudioDocumentRecord, publicUrl: string): PublicStudioDocument {
  return {
    id: record.id,
    ...record.document,
    published: record.published,
    published_at: record.publishedAt ? epochMillis(record.publishedAt) : null,
    state: record.state,
    created_at: epochMillis(record.createdAt),
    updated_at: epochMillis(record.updatedAt),
    created_by: record.createdBy,
    updated_by: record.updatedBy,
    url: resourceUrl(publicUrl, record.accountId, record.kind, record.id),
  };
}

export function toPublicTag(record: TagRecord, baseUrl: string): Tag {
  return {
    id: record.id,
    name: record.name,
    url: resourceUrl(baseUrl, record.accountId, 'tags', record.id),
    created_at: isoTimestamp(record.createdAt),
    updated_at: isoTimestamp(record.updatedAt),
    created_by: record.createdBy,
    updated_by: record.updatedBy,
  };
}
