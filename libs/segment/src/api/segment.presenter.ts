import type { Segment } from '@guidepost/contracts-http';
import type { AppConfig } from '@guidepost/platform-config';
import type { SegmentRecord } from '../domain/segment';

function accountUrl(config: AppConfig, accountId: string): string {
  return `${config.publicUrl}/v2/accounts/${encodeURIComponent(accountId)}`;
}

/** The public Segment: snake_case fields, ISO timestamps with milliseconds and `Z`, an absolute url. */
export function presentSegment(config: AppConfig, segment: SegmentRecord): Segment {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description,
    created_at: segment.createdAt.toISOString(),
    updated_at: segment.updatedAt.toISOString(),
    created_by: segment.createdBy,
    updated_by: segment.updatedBy,
    url: `${accountUrl(config, segment.accountId)}/segments/${segment.id}`,
  };
}
