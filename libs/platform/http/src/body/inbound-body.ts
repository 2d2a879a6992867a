import type { Readable } from 'node:stream';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** A request body format an endpoint can take (`file` = a multipart upload in the field `file`). */
export type BodyFormat = 'json' | 'ndjson' | 'csv' | 'file';

/** A record stream's encoding. */
export type RecordFormat = 'ndjson' | 'csv';

/**
 * The request body as the handler sees it, whatever the transport: parsed JSON, a stream of records
 * (NDJSON or CSV, sent as the body or uploaded as a file), or nothing.
 */
export type InboundBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'records'; format: RecordFormat; origin: 'body' | 'file'; stream: Readable }
  | { kind: 'empty' };

/** Where the body interceptor leaves the normalised body on the request. */
export const INBOUND_BODY = Symbol('guidepost.inboundBody');

export interface RequestWithInboundBody {
  [INBOUND_BODY]?: InboundBody;
}

/** Parameter decorator giving the normalised `InboundBody` of an `@AcceptsBody(...)` endpoint. */
export const InboundBody = createParamDecorator((_data: unknown, context: ExecutionContext): InboundBody => {
  const request = context.switchToHttp().getRequest<RequestWithInboundBody>();
  return request[INBOUND_BODY] ?? { kind: 'empty' };
});
