import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { TSchema } from '@sinclair/typebox';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '../validation/compile-validator';
import { ACCEPTS_BODY } from './accepts-body.decorator';
import { INBOUND_BODY, type InboundBody, type RequestWithInboundBody } from './inbound-body';

/**
 * How a JSON body becomes the handler's value: a TypeBox schema (checked by `compileValidator`), or a
 * function for bodies a schema alone cannot judge (a batch naming the record at fault), which returns
 * the typed value or throws a `DomainError` naming the field.
 */
export type BodyReader = TSchema | ((value: unknown) => unknown);

/**
 * The one way a JSON request body reaches a handler: `@ValidBody(SegmentCreateSchema) fields:
 * SegmentCreate`. The endpoint takes `application/json` only (another Content-Type is a 415, as with
 * `@AcceptsBody('json')`, which it implies), and the body is checked at the edge, so services receive
 * typed values and never see an unchecked one.
 *
 * The empty-body rule is the same everywhere: a request without a body is judged as `{}`, so the
 * answer names the missing field (`name: is required`) rather than the missing body, and an endpoint
 * whose fields are all optional (a replay filter) takes no body as "no filter".
 */
export function ValidBody(reader: BodyReader): ParameterDecorator {
  return validBody(bodyReadingOf(reader));
}

/** A `BodyReader` as a function of the body's JSON value (a schema compiled once). */
export function bodyReadingOf(reader: BodyReader): (value: unknown) => unknown {
  return typeof reader === 'function' ? reader : compileValidator(reader);
}

const validBody = createParamDecorator(
  (read: (value: unknown) => unknown, context: ExecutionContext): unknown =>
    read(jsonValueOf(context.switchToHttp().getRequest<RequestWithInboundBody>()[INBOUND_BODY])),
  [
    (target, key) => {
      // A parameter decorator cannot take a method decorator's place: set what `@AcceptsBody('json')` sets.
      if (key !== undefined) Reflect.defineMetadata(ACCEPTS_BODY, ['json'], (target as Record<PropertyKey, object>)[key]);
    },
  ],
);

/** The JSON value a body reader judges: a request without a body is judged as `{}`. */
export function jsonValueOf(body: InboundBody | undefined): unknown {
  switch (body?.kind) {
    case 'json':
      return body.value;
    case undefined:
    case 'empty':
      return {};
    case 'records':
      // The body interceptor answers 415 to anything but JSON before the handler runs; this keeps the type honest.
      throw new DomainError('unsupported_media_type', 'This endpoint accepts application/json only');
  }
}
