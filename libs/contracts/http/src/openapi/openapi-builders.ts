import type { TSchema } from '@sinclair/typebox';
import { AsyncAcknowledgementSchema, ProblemSchema, StatusAcknowledgementSchema } from '../schemas/common.schema';
import { EXPERIENCE_KINDS, resourceNameOf } from '../schemas/experience-kinds';
import { ID_MAX_LENGTH } from '../schemas/input-limits';
import { ref, type JsonObject } from './schema-components';

/**
 * Small builders for the parts every operation of the document repeats: version and rate-limit
 * headers, Problem Details errors, path parameters, the body formats and the CSV alternatives.
 */

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';
export type PathItems = Record<string, Partial<Record<HttpMethod, JsonObject>>>;

/** Errors an operation can answer besides those every public operation can (401, 403, 429, 500). */
export type OperationError = 400 | 404 | 413 | 415;

export const ACCOUNT_PATH = '/v2/accounts/{account_id}';
export const JSON_TYPE = 'application/json';
export const CSV_TYPE = 'text/csv';
export const NDJSON_TYPE = 'application/ndjson';
export const MULTIPART_TYPE = 'multipart/mixed';
export const MULTIPART_FORM_TYPE = 'multipart/form-data';

const componentRef = (kind: 'headers' | 'parameters' | 'responses', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

// ---------------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------------

const integerHeader = (description: string): JsonObject => ({ description, schema: { type: 'integer', minimum: 0 } });

export const HEADERS: Record<string, JsonObject> = {
  'X-API-Version': {
    description: 'The interface version, `2.32.0` with this build as semver metadata (`2.32.0+guidepost.<version>`); on every response',
    schema: { type: 'string', pattern: '^2\\.32\\.0\\+guidepost\\.' },
  },
  'RateLimit-Limit': integerHeader('Requests the account may make per second (default 60, configurable)'),
  'RateLimit-Remaining': integerHeader('Requests left in the current one-second window'),
  'RateLimit-Reset': integerHeader('Whole seconds until the window resets'),
  'X-RateLimit-Limit': integerHeader('The same value as `RateLimit-Limit`, under the name clients such as the official CLI read'),
  'X-RateLimit-Remaining': integerHeader('The same value as `RateLimit-Remaining`'),
  'X-RateLimit-Reset': integerHeader('When the window resets, in seconds since the epoch (the instant `RateLimit-Reset` counts down to)'),
  'Retry-After': integerHeader('Whole seconds to wait before retrying'),
  'WWW-Authenticate': { description: 'The authentication scheme to use: `Basic realm="guidepost"`', schema: { type: 'string' } },
  'Accept-Encoding': {
    description: "On a 415 of a body's `Content-Encoding`: the codings a body may come in, `identity, gzip`",
    schema: { type: 'string' },
  },
  'X-Content-Type-Options': {
    description: '`nosniff` on every response: its `Content-Type` is what it is, never to be sniffed as another type',
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'Cache-Control': {
    description: '`no-store` on every response of the API: it holds account data, which no browser or shared cache may keep',
    schema: { type: 'string', enum: ['no-store'] },
  },
};

/** Headers of every response of the API, problems included. */
export function everyResponseHeaders(): JsonObject {
  return Object.fromEntries(
    ['X-API-Version', 'X-Content-Type-Options', 'Cache-Control'].map((name) => [name, componentRef('headers', name)]),
  );
}

/** The account's request budget, under both names, on every answer to an authenticated public request. */
const RATE_LIMIT_HEADER_NAMES = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
] as const;

const rateLimitHeaders = (): JsonObject => Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, componentRef('headers', name)]));

/** Headers of every answer to an authenticated public request. */
export function commonHeaders(): JsonObject {
  return { ...everyResponseHeaders(), ...rateLimitHeaders() };
}

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/** A Problem Details answer (also used by the idempotency and analytics answers). */
export const problem = (description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...everyResponseHeaders(), ...headers },
  content: { [JSON_TYPE]: { schema: ref(ProblemSchema) } },
});

const ERROR_RESPONSE_NAMES = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
} as const;

export const ERROR_RESPONSES: Record<string, JsonObject> = {
  BadRequest: problem(
    'The request is malformed or invalid (malformed JSON, a missing or invalid field, a bad row or line); `detail` names ' +
      'the field, row or line at fault.',
  ),
  Unauthorized: problem(
    'Credentials are missing, malformed or invalid, or the key was revoked. Every request needs HTTP Basic ' +
      'authentication with the API key as user name and the API secret as password.',
    { 'WWW-Authenticate': componentRef('headers', 'WWW-Authenticate') },
  ),
  Forbidden: problem('The credentials are valid but belong to another account than the one in the path.'),
  NotFound: problem('The endpoint or the resource does not exist; `detail` names the resource and its id.'),
  PayloadTooLarge: problem(
    'The request body is over 20 MB, or an uploaded file is over 200 MB; `detail` names the limit. Split the data into ' +
      'several requests.',
  ),
  UnsupportedMediaType: problem(
    'The `Content-Type` is not one this endpoint accepts, or the `Content-Encoding` is neither `identity` nor `gzip`; ' +
      '`detail` names what was sent and lists what is accepted (the codings also in `Accept-Encoding`).',
    { 'Accept-Encoding': componentRef('headers', 'Accept-Encoding') },
  ),
  TooManyRequests: problem(
    'The account sent more requests than its rate limit allows (default 60 per second per account, configurable), or ' +
      'authentication failed too often from this client address or with this API key (10 failures within a minute: 5 ' +
      'minutes, before the credentials are checked; `detail` says which). Wait `Retry-After` seconds (an integer) and ' +
      'retry; clients retry 429 and 5xx answers this way.',
    { 'Retry-After': componentRef('headers', 'Retry-After'), ...rateLimitHeaders() },
  ),
  InternalServerError: problem('An unexpected failure; safe to retry. Accepted data is never lost.'),
  ServiceUnavailable: problem(
    'A store or service this request needs is down, restarting or too slow (for a tracked event in the distributed ' +
      'shape: Kafka has not acknowledged it within 5 seconds); nothing was accepted. Wait `Retry-After` seconds and ' +
      'send the request again.',
    { 'Retry-After': componentRef('headers', 'Retry-After') },
  ),
};

function errorResponses(errors: readonly OperationError[]): JsonObject {
  const statuses = [...new Set<keyof typeof ERROR_RESPONSE_NAMES>([...errors, 401, 403, 429, 500, 503])].sort((a, b) => a - b);
  return Object.fromEntries(statuses.map((status) => [String(status), componentRef('responses', ERROR_RESPONSE_NAMES[status])]));
}

// ---------------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------------

const pathParameter = (name: string, description: string, schema: JsonObject = { type: 'string', minLength: 1 }): JsonObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});

/** A user, group, segment or job id: the one length limit of every id, in the path as in bodies and imports. */
const idParameter = (name: string, what: string): JsonObject =>
  pathParameter(
    name,
    `${what} (1 to ${ID_MAX_LENGTH} characters, percent-encoded in the path; a longer one, or one holding NUL or a lone ` +
      `UTF-16 surrogate, is answered with 400 naming \`${name}\`)`,
    { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH },
  );

/** The record parameter of every experience kind: `pin_id`, `mobile_id`, `launchpad_id`, ... */
function experienceKindParameters(): Record<(typeof EXPERIENCE_KINDS)[number]['parameter'], JsonObject> {
  const entries = EXPERIENCE_KINDS.map(
    (kind) => [kind.parameter, pathParameter(kind.parameter, `${resourceNameOf(kind)} identifier`)] as const,
  );
  return Object.fromEntries(entries) as Record<(typeof EXPERIENCE_KINDS)[number]['parameter'], JsonObject>;
}

export const PATH_PARAMETERS = {
  account_id: pathParameter('account_id', 'Account identifier; the API key must belong to this account'),
  flow_id: pathParameter('flow_id', 'Flow identifier'),
  segment_id: idParameter('segment_id', 'Segment identifier'),
  tag_id: pathParameter('tag_id', 'Tag identifier'),
  user_id: idParameter('user_id', 'End-user identifier'),
  group_id: idParameter('group_id', 'Group identifier'),
  job_id: idParameter('job_id', 'Job identifier'),
  ...experienceKindParameters(),
} satisfies Record<string, JsonObject>;
export type PathParameterName = keyof typeof PATH_PARAMETERS;

// ---------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------

/** A JSON-only body. */
export function jsonBody(schema: TSchema, description: string): JsonObject {
  return { required: true, description, content: { [JSON_TYPE]: { schema: ref(schema) } } };
}

const uploadedFile = (accepted: string): JsonObject => ({
  schema: {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: `The file: ${accepted}` } },
  },
  encoding: { file: { contentType: `${CSV_TYPE}, ${NDJSON_TYPE}, application/octet-stream` } },
});

const LIMITS =
  'A request body may hold up to 20 MB, an uploaded file up to 200 MB (413 beyond); a body sent with ' +
  '`Content-Encoding: gzip` is decoded, and the limits count its decoded bytes.';

/** User ids in any of the four forms of the spec. */
export function userIdsBody(userIdList: TSchema): JsonObject {
  const file = 'newline-delimited JSON strings or CSV, one id per line';
  return {
    required: true,
    description:
      'The user ids, in one of four forms. Blank lines and indentation are ignored; a bad line is answered with 400 ' +
      `naming it. ${LIMITS}`,
    content: {
      [JSON_TYPE]: { schema: ref(userIdList) },
      [NDJSON_TYPE]: {
        schema: { type: 'string', description: 'One double-quoted JSON string per line' },
        example: '"user-1"\n"user-2"\n',
      },
      [CSV_TYPE]: {
        schema: { type: 'string', description: 'One id per line; the header line is optional and reads `user_id` or `userId`' },
        example: 'user_id\nuser-1\nuser-2\n',
      },
      [MULTIPART_TYPE]: uploadedFile(file),
      [MULTIPART_FORM_TYPE]: uploadedFile(file),
    },
  };
}

/** Rows of a bulk import: NDJSON, CSV with a header line, or an uploaded file of either. */
export function recordsBody(row: TSchema, description: string): JsonObject {
  const itemSchema = ref(row);
  return {
    required: true,
    description: `${description} Blank lines and indentation are ignored. ${LIMITS}`,
    content: {
      [NDJSON_TYPE]: {
        schema: { type: 'string', description: 'One JSON object per line; each line is a row (`x-item-schema`)' },
        'x-item-schema': itemSchema,
      },
      [CSV_TYPE]: {
        schema: { type: 'string', description: 'A header line naming the fields, then one row per line (`x-item-schema`)' },
        'x-item-schema': itemSchema,
      },
      [MULTIPART_TYPE]: { ...uploadedFile('newline-delimited JSON or CSV rows'), 'x-item-schema': itemSchema },
      [MULTIPART_FORM_TYPE]: { ...uploadedFile('newline-delimited JSON or CSV rows'), 'x-item-schema': itemSchema },
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Successful responses
// ---------------------------------------------------------------------------------------------------

export interface CsvForm {
  /** Column names of the CSV form, in order. */
  readonly columns: readonly string[];
  /** Extra words on the CSV form (flattening, omitted fields). */
  readonly note?: string;
}

/** The columns of a CSV form are the JSON field names of the schema. */
export function csvOf(schema: TSchema, note?: string, omit: readonly string[] = []): CsvForm {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return { columns: Object.keys(properties).filter((name) => !omit.includes(name)), note };
}

function csvContent(form: CsvForm, many: boolean): JsonObject {
  const header = form.columns.length > 0 ? `header line \`${form.columns.join(',')}\`` : 'header line of the field names';
  const rows = many ? 'one row per object' : 'one row';
  return {
    schema: {
      type: 'string',
      description:
        `CSV (with \`Accept: text/csv\`): ${header}, then ${rows}. Null values are empty cells; arrays and objects are ` +
        `JSON text in one cell.${form.note ? ` ${form.note}` : ''}`,
    },
  };
}

/** A 200/201 answer with one object (JSON by default, CSV under `Accept: text/csv`). */
export function objectResponse(description: string, schema: TSchema, csv: CsvForm = csvOf(schema)): JsonObject {
  return {
    description,
    headers: commonHeaders(),
    content: { [JSON_TYPE]: { schema: ref(schema) }, [CSV_TYPE]: csvContent(csv, false) },
  };
}

/** A 200 answer with an array (JSON by default, CSV one row per object). */
export function listResponse(description: string, schema: TSchema, csv: CsvForm = csvOf(schema)): JsonObject {
  return {
    description,
    headers: commonHeaders(),
    content: { [JSON_TYPE]: { schema: { type: 'array', items: ref(schema) } }, [CSV_TYPE]: csvContent(csv, true) },
  };
}

/** 200 with `{ status: 200, title: 'OK' }` (CSV `status,title`). */
export function statusAcknowledgementResponse(description: string): JsonObject {
  return objectResponse(description, StatusAcknowledgementSchema);
}

/** 202 with the job of an offline operation (CSV `status,title,job_id,job_url`). */
export function asyncAcknowledgementResponse(description: string): JsonObject {
  return objectResponse(
    `${description} The job is created before this answer, so \`job_url\` answers at once (status \`IN_PROGRESS\`); poll it ` +
      'until `COMPLETED` or `FAILED`.',
    AsyncAcknowledgementSchema,
  );
}

// ---------------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------------

export interface OperationInput {
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly pathParameters?: readonly PathParameterName[];
  readonly query?: readonly JsonObject[];
  readonly requestBody?: JsonObject;
  /** Successful answers by status. */
  readonly responses: Readonly<Record<number, JsonObject>>;
  readonly errors?: readonly OperationError[];
}

export function operation(input: OperationInput): JsonObject {
  const parameters = [
    componentRef('parameters', 'account_id'),
    ...(input.pathParameters ?? []).map((name) => componentRef('parameters', name)),
    ...(input.query ?? []),
  ];
  return {
    operationId: input.operationId,
    tags: [input.tag],
    summary: input.summary,
    ...(input.description ? { description: input.description } : {}),
    parameters,
    ...(input.requestBody ? { requestBody: input.requestBody } : {}),
    responses: {
      ...Object.fromEntries(Object.entries(input.responses).map(([status, response]) => [status, response])),
      ...errorResponses(input.errors ?? []),
    },
  };
}
