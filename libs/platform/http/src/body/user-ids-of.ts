import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '../validation/compile-validator';
import { checkedIdentifier } from '../validation/identifier';
import { csvRows } from './csv-rows';
import type { InboundBody } from './inbound-body';
import { ndjsonValues } from './ndjson-values';

// Each id is then checked by `checkedIdentifier`, which names it by its index (`user_ids[3]`) or line.
const validateUserIdList = compileValidator(Type.Object({ user_ids: Type.Array(Type.String()) }));

/** The header cells a one-column CSV of user ids may start with. */
const USER_ID_HEADERS = new Set(['user_id', 'userId']);

/**
 * The user ids of a request, in every form the spec allows: JSON `{ "user_ids": [...] }`, NDJSON
 * with one JSON string per line, CSV with one id per line (optionally under a `user_id` or `userId`
 * header), or an uploaded file of either. Streams are read as the ids are consumed; anything else,
 * and an id the API does not take (see `checkedIdentifier`), fails with 400 naming the field or line.
 */
export async function* userIdsOf(body: InboundBody): AsyncGenerator<string> {
  switch (body.kind) {
    case 'empty':
      throw new DomainError('invalid_request', 'user_ids: is required');
    case 'json': {
      const { user_ids: ids } = validateUserIdList(body.value);
      for (let index = 0; index < ids.length; index += 1) yield checkedIdentifier(`user_ids[${index}]`, ids[index]);
      return;
    }
    case 'records':
      yield* body.format === 'ndjson' ? userIdsOfNdjson(body.stream) : userIdsOfCsv(body.stream);
      return;
  }
}

async function* userIdsOfNdjson(stream: Readable): AsyncGenerator<string> {
  for await (const { line, value } of ndjsonValues(stream)) {
    if (typeof value !== 'string')
      throw new DomainError('invalid_request', `line ${line}: must be a user id as a JSON string, e.g. "user-1"`);
    yield checkedIdentifier(`line ${line}`, value);
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
    if (!isHeader) yield checkedIdentifier(`line ${line}`, cells[0]);
  }
}
