import {
  IDEMPOTENCY_KEY_DEFAULT_TTL_HOURS,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_UNSTORED_STATUSES,
  IDEMPOTENT_ANSWER_MAX_BYTES,
  IDEMPOTENT_METHODS,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../idempotency';
import { type HttpMethod, type PathItems, problem } from './openapi-builders';
import type { JsonObject } from './schema-components';

/**
 * The `Idempotency-Key` header of every POST, PATCH and DELETE, with the answers it adds (409, 422)
 * and the header of a replayed answer, as reusable components and applied to every such operation.
 */

const componentRef = (kind: 'headers' | 'parameters' | 'responses', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

const unstored = IDEMPOTENCY_UNSTORED_STATUSES.join(', ');

/** What the document's introduction says about retries (its **Idempotent requests** paragraph). */
export const IDEMPOTENCY_DESCRIPTION =
  `**Idempotent requests.** Any POST, PATCH or DELETE may carry an \`${IDEMPOTENCY_KEY_HEADER}\` header (1 to ` +
  `${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters; a UUID is a good choice; anything else is a 400 naming the ` +
  `header). For ${IDEMPOTENCY_KEY_DEFAULT_TTL_HOURS} hours after the first request (configurable), a request of the same ` +
  'account with the same key and the same method, path (with its query) and body bytes is not run again: it gets the ' +
  `first answer (status, \`Content-Type\`, \`Location\`, body) with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, so a retried ` +
  'import or export names the same job and a retried track records nothing twice. The same key with another method, ' +
  'path or body is a 422; a retry while the first request is still running is a 409 (retry it shortly). Only final ' +
  `answers are kept: 2xx and 4xx other than ${unstored}; after a 5xx, an upload cut short or an answer over ` +
  `${IDEMPOTENT_ANSWER_MAX_BYTES / (1024 * 1024)} MB the key is free again and a retry runs anew. Keys are per account. ` +
  'Track also takes an `event_id` in its body, which stores a retried event once even without the header.';

export const IDEMPOTENCY_PARAMETERS: Record<string, JsonObject> = {
  [IDEMPOTENCY_KEY_HEADER]: {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      `Makes a retry of this request safe: within ${IDEMPOTENCY_KEY_DEFAULT_TTL_HOURS} hours (configurable) of the first ` +
      'request with this key, the same request (method, path with query, body bytes: a multipart upload with the same ' +
      'boundary) gets the first answer again ' +
      `(with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`) instead of being run twice; another request with the key is a 422, ` +
      `one sent while the first is still running a 409. 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters ` +
      '(400 otherwise); scoped to the account.',
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
    example: '6f2b6a52-3c1d-4b8e-9a55-0f5f1d2c7e10',
  },
};

export const IDEMPOTENCY_HEADERS: Record<string, JsonObject> = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: `\`true\` on an answer replayed for a repeated \`${IDEMPOTENCY_KEY_HEADER}\`: the request was not run again`,
    schema: { type: 'string', enum: ['true'] },
  },
};

export const IDEMPOTENCY_RESPONSES: Record<string, JsonObject> = {
  IdempotencyKeyInUse: problem(
    `Another request with the same \`${IDEMPOTENCY_KEY_HEADER}\` is still running; it is never run twice at once. Retry ` +
      'after `Retry-After` seconds to get its answer.',
    { 'Retry-After': componentRef('headers', 'Retry-After') },
  ),
  IdempotencyKeyReused: problem(
    `The \`${IDEMPOTENCY_KEY_HEADER}\` was first used with another method, path or body; \`detail\` says which. Use a new ` +
      'key for a new request.',
  ),
};

const UNSAFE = new Set(IDEMPOTENT_METHODS.map((method) => method.toLowerCase()));

/**
 * The paths with the key documented on every POST, PATCH and DELETE: the header parameter, the 400 a
 * malformed key gets, 409 and 422, and `Idempotent-Replayed` on each success. Returns new objects.
 */
export function withIdempotencyKeys(paths: PathItems): PathItems {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, UNSAFE.has(method) ? idempotent(operation) : operation]),
      ) as Partial<Record<HttpMethod, JsonObject>>,
    ]),
  );
}

function idempotent(operation: JsonObject): JsonObject {
  const parameters = (operation['parameters'] as JsonObject[] | undefined) ?? [];
  const responses = operation['responses'] as Record<string, JsonObject>;
  const withReplayHeader = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, status.startsWith('2') ? replayable(response) : response]),
  );
  const added = {
    '400': responses['400'] ?? componentRef('responses', 'BadRequest'),
    '409': componentRef('responses', 'IdempotencyKeyInUse'),
    '422': componentRef('responses', 'IdempotencyKeyReused'),
  };
  const merged = { ...withReplayHeader, ...added };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => Number(a) - Number(b)));
  return { ...operation, parameters: [...parameters, componentRef('parameters', IDEMPOTENCY_KEY_HEADER)], responses: sorted };
}

function replayable(response: JsonObject): JsonObject {
  const headers = (response['headers'] as JsonObject | undefined) ?? {};
  return { ...response, headers: { ...headers, [IDEMPOTENT_REPLAYED_HEADER]: componentRef('headers', IDEMPOTENT_REPLAYED_HEADER) } };
}
