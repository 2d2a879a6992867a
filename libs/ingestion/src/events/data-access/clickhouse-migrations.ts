import type { ClickHouseMigration } from '@guidepost/platform-clickhouse';

/**
 * The SQL literal of a value no attribute text can hold (a lone 0xFF byte is not UTF-8, and stored text is made
 * well-formed): `flow_id` holds it when the JSON reader of the insert refused the attributes.
 * simdjson, the default reader, refuses a whole document holding an integer beyond 64 bits, and
 * inserts and mutations do not take the queries' `allow_simdjson = 0`, so such rows are read from
 * `attributes` at query time instead.
 */
export const UNPARSED_FLOW_ID_SQL = "'\\xFF'";

/**
 * `attributes.flow_id` as text, as analytics reads an attribute: a string as is, another value as its
 * JSON text, NULL when absent or null. Written out rather than shared with the analytics compiler: a
 * migration's text never changes once applied.
 */
const FLOW_ID_TEXT =
  "if(JSONType(attributes, 'flow_id') = 'Null', NULL, if(JSONType(attributes, 'flow_id') = 'String', " +
  "JSONExtractString(attributes, 'flow_id'), JSONExtractRaw(attributes, 'flow_id')))";

/**
 * The flow of an event as text: `attributes.flowId`, the key the Appcues web SDK sends, else
 * `attributes.flow_id`, as sent by hand; each read as `FLOW_ID_TEXT` reads its key. Written out for
 * migration 6, as `FLOW_ID_TEXT` is for migration 2.
 */
const SDK_FLOW_ID_TEXT =
  "coalesce(if(JSONType(attributes, 'flowId') = 'Null', NULL, if(JSONType(attributes, 'flowId') = 'String', " +
  "JSONExtractString(attributes, 'flowId'), JSONExtractRaw(attributes, 'flowId'))), " +
  `${FLOW_ID_TEXT})`;

/**
 * The attributes as JSON the insert can read: a run of 20 digits or more (an integer beyond 64 bits,
 * which simdjson refuses, failing the whole document; see `UNPARSED_FLOW_ID_SQL`) is quoted into a
 * string where it stands as a value (the stored text is compact: no space precedes a value). Only attributes that do not parse are rewritten. Migration 7's.
 */
const READABLE_ATTRIBUTES = String.raw`if(isValidJSON(attributes), attributes, replaceRegexpAll(attributes, '(:|,|\\[)(-?[0-9]{20,})', '\\1"\\2"'))`;

/**
 * The columns migration 7's stored fields are computed from, ALIAS columns (nothing stored): each
 * insert analyses every MATERIALIZED expression again, and one that spells out the attributes' reading
 * and the user agent's once per use costs the insert its size (an insert of one event took 73 ms with
 * them written out, 33 ms with them named, against 21 ms without the stored fields).
 */
const READABLE_ATTRIBUTES_COLUMN = 'readable_attributes';
const USER_AGENT_COLUMN = 'user_agent_text';

/** The SQL of a key path (`_identity._sessionId`: `_sessionId` inside `_identity`) as JSON function arguments. Migration 7's. */
function keyPathArguments(key: string): string {
  return key
    .split('.')
    .map((name) => `'${name}'`)
    .join(', ');
}

/**
 * The text of the first of `keys` the attributes hold, as analytics reads an attribute: a string as
 * is, any other value as its JSON text; `""` when none is there. Migration 7's.
 */
function firstKeyText(keys: readonly string[]): string {
  const texts = keys.map((key) => {
    const path = `${READABLE_ATTRIBUTES_COLUMN}, ${keyPathArguments(key)}`;
    return `if(JSONType(${path}) = 'Null', NULL, if(JSONType(${path}) = 'String', JSONExtractString(${path}), JSONExtractRaw(${path})))`;
  });
  return `coalesce(${texts.join(', ')}, '')`;
}

/**
 * How migration 7 derives a stored value from its keys' text `v` (`ANALYTICS_VALUE_PARSERS` of the
 * contracts says the same in words): the platform from the mobile SDKs' `_operatingSystem`, and the
 * parts of a user agent by the tokens of the common browsers, systems and devices, tested in an order
 * where each entry comes before those whose tokens its user agents also hold (every Chrome says
 * Safari, every Edge Chrome, every iPhone Mac OS X, every Android Linux).
 */
const VALUE_PARSERS: Record<string, (v: string) => string> = {
  platform: (v) => `multiIf(${v} = '', '', ${v} LIKE 'Mozilla/%', 'web', lower(${v}))`,
  browser: (v) =>
    `multiIf(match(${v}, 'Edg(e|A|iOS)?/'), 'Edge', match(${v}, 'OPR/|Opera'), 'Opera', ` +
    `match(${v}, 'SamsungBrowser/'), 'Samsung Internet', match(${v}, 'Firefox/|FxiOS/'), 'Firefox', ` +
    `match(${v}, '; wv[)]'), 'WebView', match(${v}, 'Chrome/|CriOS/|Chromium/'), 'Chrome', ` +
    `match(${v}, 'Version/.*Safari/'), 'Safari', match(${v}, 'AppleWebKit/.*Mobile/'), 'WebView', '')`,
  os: (v) =>
    `multiIf(match(${v}, 'Windows'), 'Windows', match(${v}, 'iPhone|iPad|iPod'), 'iOS', match(${v}, 'Android'), 'Android', ` +
    `match(${v}, 'CrOS'), 'ChromeOS', match(${v}, 'Mac OS X|Macintosh'), 'macOS', match(${v}, 'Linux|X11'), 'Linux', '')`,
  device: (v) =>
    `multiIf(${v} = '', '', match(${v}, 'iPad|Tablet') OR (match(${v}, 'Android') AND NOT match(${v}, 'Mobile')), 'tablet', ` +
    `match(${v}, 'Mobi|iPhone|iPod|Android'), 'mobile', 'desktop')`,
  cpu: (v) =>
    `multiIf(match(${v}, 'x86_64|x64|Win64|WOW64|amd64'), 'amd64', match(${v}, 'aarch64|arm64|ARM64'), 'arm64', ` +
    `match(${v}, '(^|[^a-zA-Z])arm'), 'arm', match(${v}, 'i[3-6]86'), 'ia32', '')`,
  engine: (v) =>
    `multiIf(match(${v}, 'Edge/'), 'EdgeHTML', match(${v}, 'Trident/'), 'Trident', match(${v}, 'iPhone|iPad|iPod'), 'WebKit', ` +
    `match(${v}, 'Firefox/'), 'Gecko', match(${v}, 'Chrome/|Chromium/'), 'Blink', match(${v}, 'AppleWebKit/'), 'WebKit', '')`,
};

/** Where migration 7 read the user agent from. */
const STORED_USER_AGENT_KEYS = ['_identity._userAgent', 'userAgent', 'user_agent'];

/**
 * The analytics fields migration 7 stores, each in a column of its name, as the vocabulary
 * (`ANALYTICS_FIELDS` of the contracts) defined them then; a spec checks that the vocabulary still
 * says the same, since a stored field read differently would need a migration of its own.
 */
export const MIGRATION_7_STORED_FIELDS: Readonly<Record<string, { keys: readonly string[]; parse?: string; type: string }>> = {
  step_id: { keys: ['stepId', 'step_id'], type: 'String' },
  experience_id: { keys: ['experienceId', 'experience_id'], type: 'String' },
  step_error_message: { keys: ['message', 'step_error_message'], type: 'String' },
  step_child_error_message: { keys: ['message', 'step_child_error_message'], type: 'String' },
  session_id: { keys: ['_identity._sessionId', 'sessionId', 'session_id'], type: 'String' },
  platform: {
    keys: ['_identity._operatingSystem', 'platform', ...STORED_USER_AGENT_KEYS],
    parse: 'platform',
    type: 'LowCardinality(String)',
  },
  user_agent_browser: { keys: STORED_USER_AGENT_KEYS, parse: 'browser', type: 'LowCardinality(String)' },
  user_agent_os: { keys: STORED_USER_AGENT_KEYS, parse: 'os', type: 'LowCardinality(String)' },
  user_agent_device: { keys: STORED_USER_AGENT_KEYS, parse: 'device', type: 'LowCardinality(String)' },
  user_agent_cpu: { keys: STORED_USER_AGENT_KEYS, parse: 'cpu', type: 'LowCardinality(String)' },
  user_agent_engine: { keys: STORED_USER_AGENT_KEYS, parse: 'engine', type: 'LowCardinality(String)' },
};

/** Adds a stored field's column, computed at insert. */
function addStoredField([field, { keys, parse, type }]: [string, { keys: readonly string[]; parse?: string; type: string }]): string {
  const text = keys === STORED_USER_AGENT_KEYS ? USER_AGENT_COLUMN : firstKeyText(keys);
  const value = parse === undefined ? text : VALUE_PARSERS[parse](text);
  return `ALTER TABLE events ADD COLUMN IF NOT EXISTS ${field} ${type} MATERIALIZED ${value}
    COMMENT 'the analytics field ${field}: ${parse === undefined ? '' : `${parse} of `}the first of ${keys.join(', ')} (empty when none)'`;
}

/** An event's identity in the store: the sorting key of `events`. */
const EVENT_KEY = '(account_id, user_id, timestamp, event_id)';

/**
 * The event store's tables. `events` is a ReplacingMergeTree whose sorting key ends with the event id:
 * ids are deterministic upstream, so an event delivered again has the key of its first copy. Since
 * migration 4 inserts go through `incoming_events`, which stores only events whose key is not stored
 * yet; merges still collapse any copy that got past it (two inserts of one event on two replicas at
 * the same moment), and reads that must be exact add `FINAL`. Partitions are months of event time
 * (exports read a time range); a user's history is a range of the sorting key.
 *
 * In order; a new migration is appended, never inserted. Statements must be safe to run twice.
 */
export const EVENT_STORE_MIGRATIONS: readonly ClickHouseMigration[] = [
  {
    version: 1,
    name: 'create events',
    statements: [
      `CREATE TABLE IF NOT EXISTS events (
        account_id String,
        event_id String,
        user_id String COMMENT 'empty for an event of a group only',
        group_id String DEFAULT '' COMMENT 'empty when the event names no group',
        name String,
        timestamp DateTime64(3, 'UTC'),
        attributes String COMMENT 'compact JSON object text',
        context_url Nullable(String),
        received_at DateTime64(3, 'UTC')
      )
      ENGINE = ReplacingMergeTree
      PARTITION BY toYYYYMM(timestamp)
      ORDER BY (account_id, user_id, timestamp, event_id)`,
    ],
  },
  {
    // Analytics over 10 M events (docs/analytics.md): grouping by name reads dictionary codes, the flow
    // funnel parses no JSON, and distinct users are counted on 8-byte keys instead of hashing every id
    // text in the query. The columns are computed at insert, and for the rows already stored by the
    // MATERIALIZE mutations (in the background: until then ClickHouse computes them when reading).
    version: 2,
    name: 'analytics columns',
    statements: [
      'ALTER TABLE events MODIFY COLUMN name LowCardinality(String)',
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS flow_id Nullable(String)
        MATERIALIZED if(isValidJSON(attributes), ${FLOW_ID_TEXT}, ${UNPARSED_FLOW_ID_SQL})
        COMMENT 'attributes.flow_id as text; a lone 0xFF byte when the insert could not read the attributes'`,
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS user_key UInt64 MATERIALIZED if(user_id = '', 0, cityHash64(user_id))
        COMMENT 'what distinct users are counted on; 0 for an event of a group only'`,
      'ALTER TABLE events MATERIALIZE COLUMN flow_id',
      'ALTER TABLE events MATERIALIZE COLUMN user_key',
    ],
  },
  {
    // A month that has had no insert for 10 minutes is merged into one part. Background merges alone
    // leave the parts of an import (each spanning every user of its account) unmerged for good: a
    // month of 10 M imported events stayed at 7 parts, and every `FINAL` read merged them again,
    // 2 to 4 times the cost of reading merged parts (bench/results/2026-11-24.md, "Analytics"). The month still
    // being written is left to the usual merges; an old month is written again only when late events
    // reach it. Operators change the delay with ALTER TABLE (docs/analytics.md, "Speed").
    version: 3,
    name: 'merge quiet months',
    statements: ['ALTER TABLE events MODIFY SETTING min_age_to_force_merge_seconds = 600, min_age_to_force_merge_on_partition_only = 1'],
  },
  {
    // An event delivered again (a sink's insert retried, a relay's publish repeated, a dead letter
    // replayed, a client sending its event_id again) is dropped inside the insert, so that reads
    // without FINAL see no copy. The sink inserts into a Null table, which keeps nothing; the view
    // writes to `events` the rows of each inserted block whose key is not stored yet, the first of
    // each key in the block. In a view, a subquery naming the Null table reads the inserted block, so
    // the lookup reads only the block's accounts and time span, and within them first the event ids
    // the block holds (`event_id IN`: a block spread over every month then costs 0.6 s instead of
    // 3.8 s against 10 M events; bench/results/2026-11-27.md). Two inserts
    // at once would each miss the other's rows: the event store adapter runs its inserts one at a time.
    version: 4,
    name: 'drop stored events at insert',
    statements: [
      `CREATE TABLE IF NOT EXISTS incoming_events (
        account_id String,
        event_id String,
        user_id String,
        group_id String DEFAULT '',
        name String,
        timestamp DateTime64(3, 'UTC'),
        attributes String,
        context_url Nullable(String),
        received_at DateTime64(3, 'UTC')
      )
      ENGINE = Null
      COMMENT 'what the event sink inserts; events_first_copies stores what is new of it in events'`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS events_first_copies TO events AS
        SELECT account_id, event_id, user_id, group_id, name, timestamp, attributes, context_url, received_at
          FROM incoming_events
         WHERE ${EVENT_KEY} NOT IN (
               SELECT ${EVENT_KEY} FROM events
                WHERE account_id IN (SELECT account_id FROM incoming_events)
                  AND timestamp >= (SELECT min(timestamp) FROM incoming_events)
                  AND timestamp <= (SELECT max(timestamp) FROM incoming_events)
                  AND event_id IN (SELECT event_id FROM incoming_events)
                  AND ${EVENT_KEY} IN (SELECT ${EVENT_KEY} FROM incoming_events))
         LIMIT 1 BY account_id, user_id, timestamp, event_id`,
    ],
  },
  {
    // Conditions on attributes read them from this map, which a query computes once per row however
    // many conditions name it, where a JSON function per condition parsed the attributes once per
    // condition (docs/analytics.md, "Speed"). ALIAS: computed when read, so it holds nothing and needs
    // no rewrite of the stored rows.
    version: 5,
    name: 'attribute values',
    statements: [
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS attribute_values Map(String, String)
        ALIAS CAST(JSONExtractKeysAndValuesRaw(attributes), 'Map(String, String)')
        COMMENT 'each attribute key to its value as JSON text'`,
    ],
  },
  {
    // The analytics field flow_id reads the key the SDKs send (`flowId`) before `flow_id`: flows
    // tracked by the web SDK counted for no flow. The stored rows are computed again in the background;
    // until a part is, queries read its flow_id as it was.
    version: 6,
    name: 'flow id as the sdks send it',
    statements: [
      `ALTER TABLE events MODIFY COLUMN flow_id Nullable(String)
        MATERIALIZED if(isValidJSON(attributes), ${SDK_FLOW_ID_TEXT}, ${UNPARSED_FLOW_ID_SQL})
        COMMENT 'attributes.flowId, else attributes.flow_id, as text; a lone 0xFF byte when the insert could not read the attributes'`,
      'ALTER TABLE events MATERIALIZE COLUMN flow_id',
    ],
  },
  {
    // The fields the reference specs and the official CLI group by (the error specs' step and
    // experience ids and messages, errors by browser and platform, sessions) are read at insert, so
    // that their queries parse no JSON; the stored events are filled in the background, and until a
    // part is, ClickHouse computes its values when reading it.
    version: 7,
    name: 'analytics fields as the sdks send them',
    statements: [
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS ${READABLE_ATTRIBUTES_COLUMN} String ALIAS ${READABLE_ATTRIBUTES}
        COMMENT 'the attributes as the stored fields read them: integers beyond 64 bits quoted where they do not parse'`,
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS ${USER_AGENT_COLUMN} String ALIAS ${firstKeyText(STORED_USER_AGENT_KEYS)}
        COMMENT 'the user agent the user_agent_* fields parse: the first of ${STORED_USER_AGENT_KEYS.join(', ')}'`,
      ...Object.entries(MIGRATION_7_STORED_FIELDS).map(addStoredField),
      // One mutation fills them all, rewriting each part once: 37 s for 1 M events on a busy 2-core host (load 20),
      // where a mutation per column took 38 s, and 70 s waited for one after the other.
      `ALTER TABLE events ${Object.keys(MIGRATION_7_STORED_FIELDS)
        .map((field) => `MATERIALIZE COLUMN ${field}`)
        .join(', ')}`,
    ],
  },
];
