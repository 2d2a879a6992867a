import { PUBLIC_API_VERSION } from '../api-version';
import {
  AnalyticsExportAcknowledgementSchema,
  AnalyticsExportStatusSchema,
  AnalyticsQuerySchema,
  AnalyticsRowSchema,
} from '../schemas/analytics.schema';
import { AsyncAcknowledgementSchema, CSV_FORMULA_RULE, ProblemSchema, StatusAcknowledgementSchema } from '../schemas/common.schema';
import { FlowSchema, IngestionFilteringRulesSchema, TagSchema } from '../schemas/content.schema';
import { EXPERIENCE_KINDS, EXPERIENCE_RECORD_SCHEMAS, tagOf } from '../schemas/experience-kinds';
import { EventSchema, TIME_ZONE_FORMS, TrackEventSchema } from '../schemas/events.schema';
import { EventExportRequestSchema, EXPORT_MAX_OFFSET } from '../schemas/exports.schema';
import { ID_MAX_LENGTH } from '../schemas/input-limits';
import { EventImportRowSchema, GroupImportRowSchema, ProfileImportRowSchema } from '../schemas/imports.schema';
import { JobDetailSchema, JobEventSchema, JobSummarySchema } from '../schemas/jobs.schema';
import {
  PROFILE_UPDATE_MAX_PROPERTIES,
  GroupProfileSchema,
  GroupProfileUpdateSchema,
  UserIdListSchema,
  UserProfileSchema,
  UserProfileUpdateSchema,
} from '../schemas/profiles.schema';
import { SegmentCreateSchema, SegmentMembershipExportRequestSchema, SegmentSchema, SegmentUpdateSchema } from '../schemas/segment.schema';
import {
  IDEMPOTENCY_DESCRIPTION,
  IDEMPOTENCY_HEADERS,
  IDEMPOTENCY_PARAMETERS,
  IDEMPOTENCY_RESPONSES,
  withIdempotencyKeys,
} from './idempotency';
import { ERROR_RESPONSES, HEADERS, PATH_PARAMETERS } from './openapi-builders';
import { analyticsPaths } from './paths/analytics.paths';
import { bulkPaths } from './paths/bulk.paths';
import { contentPaths } from './paths/content.paths';
import { peoplePaths } from './paths/people.paths';
import { segmentPaths } from './paths/segments.paths';
import { SchemaComponents, type JsonObject } from './schema-components';

const DESCRIPTION = `
The public API of an in-product experience platform: guided flows, pins, mobile experiences, user segments, tags,
end-user and group data, and offline jobs. Every path begins with \`/v2/accounts/{account_id}\`.

**Authentication.** HTTP Basic on every request: the API key is the user name, the API secret the password. Missing or
invalid credentials get 401 (with \`WWW-Authenticate\`); a key used on another account's path gets 403. A revoked key
may keep working for up to 30 seconds on other gateway replicas.

**Request bodies.** \`application/json\`, \`application/ndjson\` (one JSON value per line; \`application/x-ndjson\` too),
\`text/csv\` (a header line first unless an endpoint says otherwise) or \`multipart/mixed\` (\`multipart/form-data\` too)
with the file in a part named \`file\`, as each endpoint lists. Blank lines and indentation are ignored. Any other content type gets 415. A body over
20 MB, or an uploaded file over 200 MB, gets 413 naming the limit. A body may be sent compressed with
\`Content-Encoding: gzip\`: it is decoded, and the limits count the decoded bytes (a body that inflates past them is a 413
as soon as it does); any other coding (\`br\`, \`deflate\`, ...) gets 415 naming it, with \`Accept-Encoding: identity, gzip\`. Endpoints without a body (publish, unpublish) accept
requests with no body and no \`Content-Type\`. Bodies are UTF-8 text (a CSV or NDJSON body that is not gets 400
naming the line). JSON, in bodies and NDJSON lines, may nest arrays and objects 64 levels deep; its strings and keys,
and path parameters, may not hold NUL (\`\\u0000\`) or a lone UTF-16 surrogate, and its numbers must lie within
±1.8e308 (\`1e400\` does not): 400 naming the limit or the path (\`attributes.n\`). An upload holds one part named
\`file\` (a second is a 400). A field a JSON body does not name, at any depth, is ignored: neither stored nor echoed
(a sync tool's \`_sync_id\`); the fields it names are checked strictly, a wrong one answered 400 naming it. Free-form objects (profile properties, event \`attributes\`) keep every
key as data. The analytics query spec alone refuses a field it does not name, with 400 naming it, since a misspelt
one ignored would change the answer; it ignores \`account_id\`. Path parameters may be 1,024 characters long (414 beyond), the request line and headers
16 KB together (431); a request must arrive, headers and body, within 10 minutes by default (408). A method a path does
not take gets 405 with \`Allow\`.

**Responses.** JSON unless the request carries \`Accept: text/csv\` (no \`Accept\` header means JSON). The CSV form is
a header line of the JSON field names and one row per object; null values are empty cells; arrays and objects are JSON
text in one cell; event output flattens \`attributes\` into \`attributes.<key>\` columns. ${CSV_FORMULA_RULE} Lists are not paginated:
unknown query parameters (such as \`page\` or \`limit\`) are ignored, never rejected. Synchronous operations answer 200
(201 on creation); offline operations answer 202 with a \`job_id\` and a \`job_url\` to poll. Every response, problems
included, carries \`X-Content-Type-Options: nosniff\` and \`Cache-Control: no-store\`; so do the downloads of export files.

**Timestamps.** Flows: \`YYYY-MM-DDTHH:MM:SSZ\`. Pins and mobile experiences (and their steps): integers, milliseconds
since 1970. Segments and tags: ISO 8601 with milliseconds and \`Z\`. Job \`started_at\`: UTC without a zone suffix.

**Errors.** Every 4xx and 5xx is a Problem Details object \`{ error: true, status, title, detail }\` whose \`detail\`
names the field, row or line at fault.

**Limits.** User, group, segment and job ids have 1 to ${ID_MAX_LENGTH} characters (Unicode code points) on every path in
and out: path parameters, JSON bodies, NDJSON and CSV id lists, import rows; a longer one is a 400 naming it (an import
row fails naming \`user_id\` or \`group_id\`). No id, name, key or text value may hold NUL (\`\\u0000\`) or a lone UTF-16
surrogate, which no store keeps. Event timestamps lie in the years 1900 to 2299 (the event store's range): track answers
400 naming \`timestamp\`, an import fails the row. A profile update writes at most ${PROFILE_UPDATE_MAX_PROPERTIES} properties.
An export skips at most ${EXPORT_MAX_OFFSET} events (\`offset\`) and its conditions are bounded (see the export).
\`time_zone\` has one grammar, in history and export: ${TIME_ZONE_FORMS}.

**Throttling.** 60 requests per second per account by default (configurable). A throttled request gets 429 with an
integer \`Retry-After\` (seconds). Every authenticated answer, 429 included, carries the \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds until the reset) headers, and \`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\` (the same integers) and \`X-RateLimit-Reset\` (the reset's instant, in epoch seconds); clients retry 429 and 5xx answers after
\`Retry-After\`. Failed authentication is throttled too: after 10 failures within a minute from one client address, or
with one API key, requests from that address or with that key are answered 429 with \`Retry-After\` for 5 minutes,
before their credentials are checked (a key's throttle spares the addresses it was recently used from).

${IDEMPOTENCY_DESCRIPTION}

**Versioning.** Every response carries \`X-API-Version\`: \`2.32.0\` with this build after a plus sign. Both regional
hosts behave identically. A deployment serves HTTPS through its ingress or proxy.
`.trim();

const TAGS = [
  ['Flows', 'Guided flows: read, publish and unpublish'],
  ['Segments', 'User segments and their membership'],
  ['Tags', 'Tags of flows, pins and mobile experiences'],
  ['Users', 'End-user profiles and events'],
  ['Groups', 'Group profiles and the users of a group'],
  ['Import', 'Bulk imports of profiles, groups and events (offline)'],
  ['Export', 'Bulk event export (offline)'],
  ['Jobs', 'Offline jobs'],
  ['Analytics', 'Queries over the events: aggregate rows (metrics by dimensions) or raw rows, at once or as an export'],
  ...EXPERIENCE_KINDS.map((kind) => [tagOf(kind), `${tagOf(kind)}: read, publish and unpublish`]),
  ['Ingestion filtering rules', 'Which event names and properties are kept at intake'],
].map(([name, description]) => ({ name, description }));

const regionalServer = (variable: string, region: string): JsonObject => ({
  url: `{${variable}}`,
  description: `${region} region (both regions behave identically)`,
  variables: {
    [variable]: { default: 'http://localhost:8080', description: `Base address of the ${region} deployment, without a trailing slash` },
  },
});

/** The OpenAPI 3.1 document of the whole public API, generated from the schemas that validate it. */
export function buildOpenApiDocument(): JsonObject {
  const schemas = new SchemaComponents().add(
    ProblemSchema,
    StatusAcknowledgementSchema,
    AsyncAcknowledgementSchema,
    FlowSchema,
    ...EXPERIENCE_RECORD_SCHEMAS.values(),
    TagSchema,
    IngestionFilteringRulesSchema,
    SegmentSchema,
    SegmentCreateSchema,
    SegmentUpdateSchema,
    SegmentMembershipExportRequestSchema,
    UserIdListSchema,
    UserProfileSchema,
    UserProfileUpdateSchema,
    GroupProfileSchema,
    GroupProfileUpdateSchema,
    EventSchema,
    TrackEventSchema,
    ProfileImportRowSchema,
    GroupImportRowSchema,
    EventImportRowSchema,
    EventExportRequestSchema,
    JobSummarySchema,
    JobEventSchema,
    JobDetailSchema,
    AnalyticsQuerySchema,
    AnalyticsRowSchema,
    AnalyticsExportAcknowledgementSchema,
    AnalyticsExportStatusSchema,
  );
  const paths = withIdempotencyKeys({ ...contentPaths(), ...segmentPaths(), ...peoplePaths(schemas), ...bulkPaths(), ...analyticsPaths() });
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Guidepost public API',
      version: PUBLIC_API_VERSION,
      description: DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [regionalServer('base_url', 'US'), regionalServer('base_url_eu', 'EU')],
    security: [{ basicAuth: [] }],
    tags: TAGS,
    paths,
    components: {
      schemas: schemas.all(),
      parameters: { ...PATH_PARAMETERS, ...IDEMPOTENCY_PARAMETERS },
      headers: { ...HEADERS, ...IDEMPOTENCY_HEADERS },
      responses: { ...ERROR_RESPONSES, ...IDEMPOTENCY_RESPONSES },
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: 'The API key as user name and the API secret as password, as created in the account settings',
        },
      },
    },
  };
}
