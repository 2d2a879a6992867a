import type { Segment } from '@guidepost/contracts-http';
import type { SegmentRecord } from '../domain/segment';

/** The public Segment: snake_case fields, ISO timestamps with milliseconds and `Z`, a url on the request's `baseUrl`. */
export function presentSegment(baseUrl: string, segment: SegmentRecord): Segment {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description,
    created_at: segment.createdAt.toISOString(),
    updated_at: segment.updatedAt.toISOString(),
    created_by: segment.createdBy,
    updated_by: segment.updatedBy,
    url: `${baseUrl}/v2/accounts/${encodeURIComponent(segment.accountId)}/segments/${segment.id}`,
  };
}
