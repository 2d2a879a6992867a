import { DomainError } from '@guidepost/platform-errors';
import { type InboundBody } from '@guidepost/platform-http';

/** The answer to a content upsert. */
export interface UpsertResult {
  readonly upserted: number;
}

/** The parsed JSON of an admin upsert body; any other body is a 400. */
export function jsonOf(body: InboundBody): unknown {
  if (body.kind !== 'json') throw new DomainError('invalid_request', 'body: a JSON body is required');
  return body.value;
}
