import { Type, type Static } from '@sinclair/typebox';
import { CSV_FORMULA_RULE } from './common.schema';
import { timeZoneSchema } from './events.schema';

/**
 * The bulk event export request (`POST /export/events`) and its condition grammar (docs/api-contract.md#exports):
 * a condition is `[field, operator, value]`, `[field, 'is null' | 'is not null']` or
 * `[conjunction, condition, ...]`; top-level conditions are joined with AND.
 */

export const EXPORT_MAX_EVENTS = 10_000_000;
/**
 * The largest `offset`: far beyond any account's events, and small enough that `offset + limit` stays
 * an exact (safe) integer everywhere it travels (JSON, the bus, the event store's UInt64 parameters).
 */
export const EXPORT_MAX_OFFSET = 1_000_000_000_000;
/** Leaf conditions (`[field, operator, value]`) of one request, all levels together. */
export const MAX_CONDITIONS = 1_000;
/** Nesting of conjunctions: no real filter needs more, and the SQL would only grow. */
export const MAX_CONDITION_DEPTH = 16;
/** Compared values of one request (each item of an `in` list counts), all conditions together. */
export const MAX_CONDITION_VALUES = 10_000;
/**
 * Characters of field names and compared values of one request, all together: the values travel as
 * query parameters in the URL of one request to the event store, whose length is bounded (ClickHouse
 * takes 1 MiB by default, and a character may take up to about 11 once escaped and URL-encoded).
 */
export const MAX_CONDITIONS_TEXT_LENGTH = 65_536;
/**
 * Addresses one export may mail its link to: a team's handful. Each is a message the mail server
 * sends, so the list is bounded like every other fan-out a request can cause.
 */
export const EXPORT_MAX_EMAILS = 10;
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export const COMPARISON_OPERATORS = ['==', '!=', 'like', 'not like', 'ilike', 'not ilike'] as const;
export const MEMBERSHIP_OPERATORS = ['in', 'not in'] as const;
export const NULL_OPERATORS = ['is null', 'is not null'] as const;
export const CONJUNCTIONS = ['and', 'or'] as const;
/** Fields that are the event's own columns; any other field names the attribute of that name. */
export const EVENT_COLUMN_FIELDS = ['name', 'user_id', 'group_id', 'timestamp'] as const;

export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export type MembershipOperator = (typeof MEMBERSHIP_OPERATORS)[number];
export type NullOperator = (typeof NULL_OPERATORS)[number];
export type Conjunction = (typeof CONJUNCTIONS)[number];
export type ConditionValue = string | number | boolean;
export type ExportCondition =
  | [field: string, operator: ComparisonOperator, value: ConditionValue]
  | [field: string, operator: MembershipOperator, values: ConditionValue[]]
  | [field: string, operator: NullOperator]
  | [conjunction: Conjunction, ...conditions: ExportCondition[]];

const scalar = { type: ['string', 'number', 'boolean'], description: 'Compared value (a query parameter, never SQL text)' };
const text = (description: string) => ({ type: 'string', maxLength: MAX_CONDITIONS_TEXT_LENGTH, description });
const field = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CONDITIONS_TEXT_LENGTH,
  not: { enum: [...CONJUNCTIONS] },
  description: `\`${EVENT_COLUMN_FIELDS.join('`, `')}\` (the event's columns) or any other name, which means the attribute of that name (\`flow_id\` is \`attributes.flow_id\`)`,
};
/** A fixed-length tuple in the draft-07 form the validators use (the OpenAPI document converts it to `prefixItems`). */
const tuple = (items: object[], description: string) => ({
  type: 'array',
  items,
  additionalItems: false,
  minItems: items.length,
  maxItems: items.length,
  description,
});
const LIKE_OPERATORS = COMPARISON_OPERATORS.filter((operator) => operator.includes('like'));
const EQUALITY_OPERATORS = COMPARISON_OPERATORS.filter((operator) => !operator.includes('like'));

/** The leaf of the grammar: one test of one field. Embedded once (a validator takes each `$id` once), referred to elsewhere. */
const ExportComparisonSchema = {
  $id: 'ExportComparison',
  anyOf: [
    tuple([field, { enum: EQUALITY_OPERATORS }, scalar], '`[field, "==" | "!=", value]`'),
    tuple([field, { enum: LIKE_OPERATORS }, text('Pattern: `%` and `_` are wildcards, `\\` escapes')], '`[field, like operator, pattern]`'),
    tuple(
      [field, { enum: [...MEMBERSHIP_OPERATORS] }, { type: 'array', items: scalar, minItems: 1, maxItems: MAX_CONDITION_VALUES }],
      '`[field, "in" | "not in", [values]]`',
    ),
    tuple([field, { enum: [...NULL_OPERATORS] }], '`[field, "is null" | "is not null"]` (no value)'),
  ],
  description: 'A comparison: `[field, operator, value]` or `[field, "is null" | "is not null"]`',
};
const comparison = { $ref: ExportComparisonSchema.$id };

/**
 * A condition at nesting `level` (1: an item of `conditions`): a comparison, or, while conjunctions
 * may still nest (`MAX_CONDITION_DEPTH`), a conjunction of conditions of the next level. Written out
 * level by level (`ExportCondition`, `ExportConditionLevel2` ... `ExportConditionLevel16`) instead of as
 * one schema that refers to itself, so the schema states the limit the server applies and tools that
 * generate requests from the document (schemathesis, hypothesis) stop nesting. Plain JSON Schema,
 * because TypeBox tuples have no rest element; each level's `$id` makes it a component of its own.
 */
function conditionAt(level: number): object {
  if (level > MAX_CONDITION_DEPTH) return comparison;
  const conjunction = {
    type: 'array',
    items: [{ enum: [...CONJUNCTIONS] }],
    additionalItems: conditionAt(level + 1),
    minItems: 2,
    // No maxItems: `conditions` already bounds the comparisons of a request together, and a bound on
    // every level would make schemathesis' coverage phase build arrays of a thousand conditions per level.
    description: `\`[conjunction, condition, condition, ...]\`, nestable ${MAX_CONDITION_DEPTH} deep`,
  };
  return {
    $id: level === 1 ? 'ExportCondition' : `ExportConditionLevel${level}`,
    anyOf: [level === 1 ? ExportComparisonSchema : comparison, conjunction],
    description: `A condition inside ${level - 1} conjunction${level === 2 ? '' : 's'} (see \`ExportCondition\`)`,
  };
}

export const ExportConditionSchema = Type.Unsafe<ExportCondition>({
  ...conditionAt(1),
  description:
    `A filter condition. Operators: ${[...COMPARISON_OPERATORS, ...MEMBERSHIP_OPERATORS, ...NULL_OPERATORS].map((op) => `\`${op}\``).join(', ')}. ` +
    `Conjunctions: \`and\`, \`or\`. Anything else is answered with 400 naming the offending condition. Limits, all ` +
    `conditions of a request together: ${MAX_CONDITIONS} conditions, conjunctions nested ${MAX_CONDITION_DEPTH} deep, ` +
    `${MAX_CONDITION_VALUES} compared values and ${MAX_CONDITIONS_TEXT_LENGTH} characters of field names and values. Field names ` +
    'and text values must not contain NUL (`\\u0000`) or a lone UTF-16 surrogate; a like-family pattern escapes `%`, `_` and `\\` ' +
    'with a backslash, so it cannot end with a lone one; `timestamp` compares instants in the years 1900 to 2299.',
  examples: [
    ['flow_id', '==', 'welcome'],
    ['or', ['name', 'like', 'svc:%'], ['nps_feedback', 'is not null']],
  ],
});

/** A date-time with seconds and no zone, which an export reads in its `time_zone`. */
export const UNZONED_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?$';

const instant = (description: string) =>
  Type.Union(
    [
      Type.String({ format: 'date-time', description: 'ISO 8601 date-time with Z or an offset' }),
      Type.String({ pattern: UNZONED_DATE_TIME_PATTERN, description: 'ISO 8601 date-time without a zone, read in `time_zone`' }),
      Type.String({ format: 'date', description: 'A calendar day in `time_zone`: a whole day, as start or as end of the range' }),
      Type.Integer({ minimum: 0, description: 'Milliseconds since 1970' }),
    ],
    {
      description:
        `${description}: an ISO 8601 date-time (with Z or an offset, or without one: read in \`time_zone\`), a date ` +
        '(`2026-11-27`: from the first instant of that day in `time_zone` as start, through its last as end), or milliseconds ' +
        'since 1970. The event store holds the years 1900 to 2299, so an earlier instant selects from 1900 on and a later ' +
        'one up to the end of 2299',
    },
  );

export const EventExportRequestSchema = Type.Object(
  {
    format: Type.Union(
      EXPORT_FORMATS.map((format) => Type.Literal(format)),
      {
        description:
          '`json`: newline-delimited JSON, one object per line with `name`, `timestamp`, `user_id`, `id` (the event id), `attributes`; `csv`: ' +
          `columns \`name\`, \`timestamp\`, \`user_id\`, \`id\` and one \`attributes.<key>\` column per attribute key seen (sorted). ${CSV_FORMULA_RULE}`,
      },
    ),
    conditions: Type.Array(ExportConditionSchema, {
      maxItems: MAX_CONDITIONS,
      description: 'Filter; top-level conditions are joined with AND; `[]` selects all events',
    }),
    start_time: instant('Start of the range'),
    end_time: Type.Optional(instant('End of the range')),
    email: Type.Optional(
      Type.Union(
        [Type.String({ format: 'email' }), Type.Array(Type.String({ format: 'email' }), { minItems: 1, maxItems: EXPORT_MAX_EMAILS })],
        {
          description:
            `Address(es) that receive the link to the export when it is done (at most ${EXPORT_MAX_EMAILS}; a longer list is a 400 ` +
            'naming `email`); the link is also in the job detail',
        },
      ),
    ),
    time_zone: Type.Optional(timeZoneSchema('Time zone of the exported timestamps; default 0 (UTC)')),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: EXPORT_MAX_EVENTS, description: `Most events exported; never more than ${EXPORT_MAX_EVENTS}` }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: EXPORT_MAX_OFFSET,
        default: 0,
        description: `Events to skip; with \`limit\`, for pagination (at most ${EXPORT_MAX_OFFSET})`,
      }),
    ),
  },
  {
    $id: 'EventExportRequest',
    description:
      'Body of `POST /export/events`. The finished job carries the link to the file in ' +
      'its `Completed` event (`signed_s3_url`, valid one week, with `expires_at` and `rows`); the recommended range is ' +
      'under one month.',
  },
);
export type EventExportRequest = Static<typeof EventExportRequestSchema>;
