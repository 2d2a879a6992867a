import { Type, type Static } from '@sinclair/typebox';
import { ID_MAX_LENGTH, identifierSchema } from './input-limits';

/**
 * End-user events as the public API takes them (track) and returns them (history). Names starting
 * `svc:` are internal events the service records itself (for example `svc:profile_update`); names
 * starting `svc_custom:` are click-to-track events, recorded like any other.
 */

export const EVENT_HISTORY_DEFAULT_LIMIT = 100;
export const EVENT_HISTORY_MAX_LIMIT = 10_000;
/** `+HH:MM` or `-HH:MM`, from -14:00 to +14:00; `HH:MM` without a sign is east of UTC, as with `+`. */
export const TIME_ZONE_OFFSET_PATTERN = '^[+-]?(0\\d:[0-5]\\d|1[0-3]:[0-5]\\d|14:00)$';
export const TIME_ZONE_MAX_MINUTES = 14 * 60;
/**
 * Whole minutes written as text, in JSON integer syntax: no `+` sign and no leading zeros, so that
 * `+0530` (an ISO 8601 basic offset, 5 h 30) is refused rather than read as 530 minutes.
 */
export const TIME_ZONE_MINUTES_PATTERN = '^(0|-?[1-9]\\d{0,2})$';
/** The one grammar of `time_zone` (history and export alike), as documented and as error details state it. */
export const TIME_ZONE_FORMS =
  `an offset from -14:00 to +14:00 as +HH:MM or -HH:MM (HH:MM without a sign is +HH:MM), or whole minutes east of UTC from -${TIME_ZONE_MAX_MINUTES} to ` +
  `${TIME_ZONE_MAX_MINUTES} (an integer such as 330 or -240, no + sign or leading zeros)`;

const freeForm = (description: string) => Type.Object({}, { additionalProperties: true, description });

/**
 * A time zone offset in the forms the spec allows; no `$id`, so schemas that embed it compile on their
 * own. The minutes may come as text too: a query string carries nothing else.
 */
export const timeZoneSchema = (description: string) =>
  Type.Union(
    [
      Type.String({ pattern: TIME_ZONE_OFFSET_PATTERN, description: '`+HH:MM` or `-HH:MM` (`HH:MM` is `+HH:MM`)', examples: ['-04:00'] }),
      Type.String({ pattern: TIME_ZONE_MINUTES_PATTERN, description: 'Minutes east of UTC as text', examples: ['-240'] }),
      Type.Integer({
        minimum: -TIME_ZONE_MAX_MINUTES,
        maximum: TIME_ZONE_MAX_MINUTES,
        description: 'Minutes east of UTC',
        examples: [-240],
      }),
    ],
    { description: `${description}: ${TIME_ZONE_FORMS}` },
  );

/** The longest client-supplied `event_id` of a tracked event, in characters (as long as any id). */
export const EVENT_ID_MAX_LENGTH = ID_MAX_LENGTH;

export const EventSchema = Type.Object(
  {
    user_id: Type.String({ maxLength: ID_MAX_LENGTH, description: 'End user the event belongs to' }),
    name: Type.String({ description: 'Event name' }),
    timestamp: Type.String({
      format: 'date-time',
      description: 'ISO 8601 date-time in the requested time zone (UTC, `Z`, by default)',
      examples: ['2024-05-01T09:30:00.000Z', '2024-05-01T05:30:00.000-04:00'],
    }),
    attributes: Type.Optional(freeForm('Free-form key/value data; absent when the event has none')),
  },
  { $id: 'Event', description: 'A recorded end-user event' },
);
export type Event = Static<typeof EventSchema>;

export const TrackEventSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Event name', examples: ['signup', 'svc_custom:clicked_help'] }),
    timestamp: Type.String({
      format: 'date-time',
      description:
        'When the event happened: ISO 8601 date-time with `Z` or an offset such as `-04:00`, in the years 1900 to 2299 ' +
        '(the range the event store holds; outside it the event is refused with 400 naming `timestamp`)',
      examples: ['2024-05-01T09:30:00Z', '2024-05-01T05:30:00-04:00'],
    }),
    attributes: Type.Optional(
      Type.Object(
        {
          _identity: Type.Optional(freeForm('Identity data of the end user (free-form)')),
        },
        { additionalProperties: true, description: 'Free-form key/value data; may include an `_identity` object' },
      ),
    ),
    group_id: Type.Optional(identifierSchema('Group the event applies to')),
    context: Type.Optional(
      Type.Object(
        { url: Type.Optional(Type.String({ description: 'Page the event happened on' })) },
        { description: 'Context of the event: `url`, the one field kept' },
      ),
    ),
    event_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: EVENT_ID_MAX_LENGTH,
        description:
          `Your own id of this event (1 to ${EVENT_ID_MAX_LENGTH} characters, like Segment's \`messageId\` or Amplitude's ` +
          '`insert_id`): an event sent again with the same `event_id`, user and timestamp (a retry) is stored once (the ' +
          'first one sent is kept), even without an `Idempotency-Key`. Without it, every request records an event of its ' +
          'own. Like the other text fields it may not hold NUL or a lone UTF-16 surrogate (400 naming `event_id`).',
        examples: ['a3f1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b'],
      }),
    ),
  },
  {
    $id: 'TrackEvent',
    description:
      'Body of `POST /users/{user_id}/events`. The event is acknowledged only once it is durable, is usable for targeting ' +
      'and personalization at once and appears in event history within seconds. An event whose name the ingestion ' +
      'filtering rules drop is acknowledged and counted, not stored.',
  },
);
export type TrackEvent = Static<typeof TrackEventSchema>;

export const EventHistoryQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EVENT_HISTORY_MAX_LIMIT,
        default: EVENT_HISTORY_DEFAULT_LIMIT,
        description: `At most this many events (default ${EVENT_HISTORY_DEFAULT_LIMIT}, at most ${EVENT_HISTORY_MAX_LIMIT})`,
      }),
    ),
    time_zone: Type.Optional(timeZoneSchema('Time zone of the returned timestamps; default 0 (UTC)')),
  },
  {
    $id: 'EventHistoryQuery',
    description: 'Query of `GET /users/{user_id}/events`, after parsing (query values arrive as text). Other parameters are ignored.',
  },
);
export type EventHistoryQuery = Static<typeof EventHistoryQuerySchema>;
