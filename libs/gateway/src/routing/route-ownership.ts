import { EXPERIENCE_KINDS } from '@guidepost/contracts-http';
import type { ServiceName } from '@guidepost/platform-config';

/** Every route at `prefix` or below it (a Fastify path pattern) is served by `service`. */
export interface RouteOwnership {
  readonly prefix: string;
  readonly service: ServiceName;
}

const ACCOUNT = '/v2/accounts/:account_id';
const ADMIN_ACCOUNT = '/admin/v1/accounts/:account_id';

/** The services whose dead letters (`/admin/v1/dead-letters/{service}`) are theirs to serve. */
const DEAD_LETTER_OWNERS: readonly ServiceName[] = ['content', 'segment', 'profile', 'ingestion'];

/**
 * What the content service serves publicly, and upserts through the admin API in the studio's stead:
 * the experience kinds come from the one table of them (`EXPERIENCE_KINDS`), which also makes the controllers.
 */
const CONTENT_COLLECTIONS = ['flows', ...EXPERIENCE_KINDS.map(({ collection }) => collection), 'tags', 'ingestion_filtering_rules'];

/**
 * Which service owns which public route in the distributed shape. The gateway keeps the rest: accounts
 * and API keys (`/admin/v1/accounts`, `.../api_keys`), its own dead letters
 * (`/admin/v1/dead-letters/gateway`), `/openapi.json`, its health and metrics; every
 * other path is answered by the gateway itself (404 after authentication). Internal routes
 * (`/internal/...`) are never routed: only services call each other's. `route-ownership.spec.ts` in the
 * standalone app checks this table against every controller route.
 */
export const ROUTE_OWNERSHIP: readonly RouteOwnership[] = [
  ...CONTENT_COLLECTIONS.flatMap((collection): RouteOwnership[] => [
    { prefix: `${ACCOUNT}/${collection}`, service: 'content' },
    { prefix: `${ADMIN_ACCOUNT}/${collection}`, service: 'content' },
  ]),
  { prefix: `${ACCOUNT}/segments`, service: 'segment' },
  { prefix: `${ACCOUNT}/users/:user_id/profile`, service: 'profile' },
  { prefix: `${ACCOUNT}/groups/:group_id/profile`, service: 'profile' },
  { prefix: `${ACCOUNT}/groups/:group_id/users`, service: 'profile' },
  { prefix: `${ACCOUNT}/users/:user_id/events`, service: 'ingestion' },
  { prefix: `${ACCOUNT}/import`, service: 'ingestion' },
  { prefix: `${ACCOUNT}/export/events`, service: 'ingestion' },
  { prefix: `${ACCOUNT}/analytics`, service: 'ingestion' },
  // The job registry, and the failures of import jobs (`/jobs/{job_id}/failures`).
  { prefix: `${ACCOUNT}/jobs`, service: 'ingestion' },
  // Each service keeps (and serves) its own dead letters; the gateway's own stay here.
  ...DEAD_LETTER_OWNERS.map((service): RouteOwnership => ({ prefix: `/admin/v1/dead-letters/${service}`, service })),
];
