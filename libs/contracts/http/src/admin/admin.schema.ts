import { Type, type Static } from '@sinclair/typebox';
import { EXPERIENCE_KINDS, type ExperienceCollection } from '../schemas/experience-kinds';

/**
 * Shapes of the admin API (`/admin/v1`), the token-protected surface that stands in for the web studio
 * that owns accounts, keys and content. The gateway validates with these schemas and the admin client
 * is typed by them, so both sides read one definition.
 */

/** Account ids appear in every public path, so they are restricted to URL-safe characters. */
export const ACCOUNT_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export const CreateAccountRequestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name of the account' }),
    id: Type.Optional(
      Type.String({ pattern: ACCOUNT_ID_PATTERN, description: 'Chosen account id; 24 hex characters are generated when omitted' }),
    ),
  },
  // Closed: a misspelt `id` ignored would create the account under a generated id instead.
  { additionalProperties: false },
);
export type CreateAccountRequest = Static<typeof CreateAccountRequestSchema>;

export const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
export type Account = Static<typeof AccountSchema>;

/** The answer to creating an API key: the only time the secret is ever shown. */
export const CreatedApiKeySchema = Type.Object({
  account_id: Type.String(),
  key: Type.String({ description: 'Public key id: the user name of HTTP Basic authentication' }),
  secret: Type.String({ description: 'The password of HTTP Basic authentication; never retrievable again' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

/** Content kinds the admin API upserts with `PUT /admin/v1/accounts/{account_id}/{kind}` (a JSON array body). */
export type ContentKind = 'flows' | 'tags' | ExperienceCollection;
export const CONTENT_KINDS: readonly ContentKind[] = ['flows', ...EXPERIENCE_KINDS.map(({ collection }) => collection), 'tags'];

/** The answer to a content upsert. */
export interface UpsertResult {
  readonly upserted: number;
}

/**
 * The services that keep dead letters, each in its own schema: `/admin/v1/dead-letters/{service}`. In
 * the distributed shape each service serves its own (the gateway routes them), in the standalone
 * shape one process serves them all.
 */
export const DEAD_LETTER_SERVICES = ['gateway', 'content', 'segment', 'profile', 'ingestion'] as const;
export type DeadLetterService = (typeof DEAD_LETTER_SERVICES)[number];

/** Dead letters per page: `limit` defaults to this, and may be at most `DEAD_LETTER_PAGE_MAX`. */
export const DEAD_LETTER_PAGE_DEFAULT = 50;
export const DEAD_LETTER_PAGE_MAX = 500;

/**
 * Who gave the message up: `relay`, the service's outbox relay, which could not publish it (in the
 * standalone shape also when a consumer gave it up, since consumers run inside the relay's delivery;
 * the reason names the group); or `consumer`, a consumer group of the service, on Kafka.
 */
export const DEAD_LETTER_SOURCES = ['relay', 'consumer'] as const;
export type DeadLetterSource = (typeof DEAD_LETTER_SOURCES)[number];

export const DEAD_LETTER_STATUSES = ['waiting', 'replayed'] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

export const DeadLetterSummarySchema = Type.Object({
  id: Type.String({ description: 'The dead letter, within its service' }),
  service: Type.String(),
  source: Type.Union(DEAD_LETTER_SOURCES.map((source) => Type.Literal(source))),
  topic: Type.String(),
  group: Type.Union([Type.String(), Type.Null()], { description: 'The consumer group that gave the message up; null for the relay' }),
  message_id: Type.Union([Type.String(), Type.Null()], { description: 'Null when the record carried no message id' }),
  key: Type.Union([Type.String(), Type.Null()]),
  reason: Type.String(),
  attempts: Type.Integer({ description: 'Failed runs before it was given up; 0 when it could never be handled' }),
  failed_at: Type.String({ format: 'date-time' }),
  status: Type.Union(DEAD_LETTER_STATUSES.map((status) => Type.Literal(status))),
  replayed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  partition: Type.Union([Type.Integer(), Type.Null()], { description: 'Where a consumer read it (Kafka)' }),
  offset: Type.Union([Type.String(), Type.Null()]),
});
export type DeadLetterSummary = Static<typeof DeadLetterSummarySchema>;

export const DeadLetterSchema = Type.Intersect([
  DeadLetterSummarySchema,
  Type.Object({
    payload: Type.Unknown({ description: 'The message payload; null when the record was not JSON (see raw_value)' }),
    raw_value: Type.Union([Type.String(), Type.Null()]),
    headers: Type.Record(Type.String(), Type.String()),
    occurred_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    replayable: Type.Boolean({ description: 'False for a record that is no message (no key, no id, not JSON)' }),
  }),
]);
export type DeadLetter = Static<typeof DeadLetterSchema>;

export const DeadLetterPageSchema = Type.Object({
  dead_letters: Type.Array(DeadLetterSummarySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last' }),
});
export type DeadLetterPage = Static<typeof DeadLetterPageSchema>;

/** Which dead letters a list or a bulk replay concerns. */
export interface DeadLetterFilter {
  readonly topic?: string;
  readonly group?: string;
}

export interface DeadLetterListOptions extends DeadLetterFilter {
  readonly status?: DeadLetterStatus;
  readonly limit?: number;
  readonly cursor?: string;
}

/** The answer to a bulk replay: how many waiting dead letters were replayed, and which could not be, why. */
export const DeadLetterBulkReplaySchema = Type.Object({
  replayed: Type.Integer(),
  failed: Type.Array(Type.Object({ id: Type.String(), reason: Type.String() })),
});
export type DeadLetterBulkReplay = Static<typeof DeadLetterBulkReplaySchema>;
