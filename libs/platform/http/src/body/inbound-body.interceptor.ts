import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { ACCEPTS_BODY } from './accepts-body.decorator';
import { INBOUND_BODY, type BodyFormat, type InboundBody, type RequestWithInboundBody } from './inbound-body';
import { bodyFormatOf, describeSentMediaType, mediaTypeOf, unsupportedMediaTypeDetail } from './media-types';
import { uploadedRecords } from './uploaded-file';

/**
 * Enforces `@AcceptsBody(...)` and turns what the content-type parsers produced into the handler's
 * `InboundBody`. Handlers without the decorator are left alone: their body, if any, is never read.
 */
@Injectable()
export class InboundBodyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const accepted = this.reflector.get<BodyFormat[] | undefined>(ACCEPTS_BODY, context.getHandler());
    if (accepted && context.getType() === 'http') {
      const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithInboundBody>();
      request[INBOUND_BODY] = await inboundBodyOf(request, accepted, this.config);
    }
    return next.handle();
  }
}

/**
 * What the content-type parsers produced for a request, as the handler's `InboundBody`; a 415 naming
 * the accepted types when the body is in another format. Also used by direct routes (`direct-route.ts`).
 */
export async function inboundBodyOf(request: FastifyRequest, accepted: readonly BodyFormat[], config: AppConfig): Promise<InboundBody> {
  const mediaType = mediaTypeOf(request.headers['content-type']);
  // The parsers let a type outside the list through only when the body is empty.
  const format = bodyFormatOf(mediaType);
  if (format === undefined) return { kind: 'empty' };
  if (!accepted.includes(format)) {
    throw new DomainError('unsupported_media_type', unsupportedMediaTypeDetail(describeSentMediaType(mediaType), accepted));
  }
  switch (format) {
    case 'json':
      return request.body === undefined ? { kind: 'empty' } : { kind: 'json', value: request.body };
    case 'ndjson':
    case 'csv':
      return { kind: 'records', format, origin: 'body', stream: request.body as InboundStream };
    case 'file':
      return uploadedRecords(request.body as InboundStream, request.headers['content-type'], config);
  }
}

/** What the streaming parsers (see `http-server.ts`) leave as the body of NDJSON, CSV and multipart requests. */
type InboundStream = Extract<InboundBody, { kind: 'records' }>['stream'];
