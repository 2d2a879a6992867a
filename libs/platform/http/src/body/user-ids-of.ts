import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../errors/domain-error';
import { compileValidator } from '../validation/compile-validator';
import { csvRows } from './csv-rows';
import type { InboundBody } from './inbound-body';
import { ndjsonValues } from './ndjson-values';

const validateUserIdList = compileValidator(
  Type.Object({ user_ids: Type.Array(Type.String({ minLength: 1 })) }, { additionalProperties: true }),
);

/** The header cells a one-column CSV of user ids may start with. */
const USER_ID_HEADERS = new Set(['user_id', 'userId']);

/**
 * The user ids of a request, in every form the spec allows: JSON `{ "user_ids": [...] }`, NDJSON
 * with one JSON string per line, CSV with one id per line (optionally under a `user_id` or `userId`
 * header), or an uploaded file of either. Streams are read as the ids are consumed; anything else
 * fails with 400 naming the field or line.
 */
export async function* userIdsOf(body: InboundBody): AsyncGenerator<string> {
  switch (body.kind) {
    case 'empty':
      throw new DomainError('invalid_request', 'user_ids: is required');
    case 'json':
      yield* validateUserIdList(body.value).user_ids;
      return;
    case 'records':
      yield* body.format === 'ndjson' ? userIdsOfNdjson(body.stream) : userIdsOfCsv(body.stream);
      return;
  }
}

async function* userIdsOfNdjson(stream: Readable): AsyncGenerator<string> {
  for await (const { line, value } of ndjsonValues(stream)) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new DomainError('invalid_request', `line ${line}: must be a user id as a JSON string, e.g. "user-1"`);
    }
    yield value;
  }
}

async function* userIdsOfCsv(stream: Readable): AsyncGenerator<string> {
  let first = true;
  for await (const { line, cells } of csvRows(stream)) {
    if (cells.length !== 1) {
      throw new DomainError('invalid_request', `line ${line}: must hold exactly one user id, found ${cells.length} values`);
    }
    const isHeader = first && USER_ID_HEADERS.has(cells[0]);
    first = false;
    if (!isHeader) yield cells[0];
  }
}
