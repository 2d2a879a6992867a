import { DomainError } from '@guidepost/platform-errors';
import { type InboundBody } from '@guidepost/platform-http';

/**
 * The JSON value of a JSON-only endpoint. A request without a body counts as an empty object, so that
 * validation names the missing field (`name: is required`) rather than the missing body.
 */
export function jsonValueOf(body: InboundBody): unknown {
  switch (body.kind) {
    case 'json':
      return body.value;
    case 'empty':
      return {};
    case 'records':
      // `@AcceptsBody('json')` answers 415 before the handler runs; this only keeps the type honest.
      throw new DomainError('unsupported_media_type', 'This endpoint accepts application/json only');
  }
}
