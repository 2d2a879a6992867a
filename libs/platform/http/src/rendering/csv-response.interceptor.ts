import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, StreamableFile } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { prefersCsv } from './accept';
import { CSV_RENDERING, type CsvRenderingOptions } from './csv-rendering.decorator';
import { renderCsv } from './render-csv';

const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/**
 * Content negotiation for every handler: JSON unless the request's `Accept` prefers `text/csv`, in
 * which case object and array results render as CSV. Strings, buffers and streams (metrics, files)
 * pass through untouched. Problems are always JSON: they come from the exception filter, not here.
 */
@Injectable()
export class CsvResponseInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const render = csvRendererFor(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
    if (render === undefined) return next.handle();
    const options = this.reflector.get<CsvRenderingOptions | undefined>(CSV_RENDERING, context.getHandler());
    return next.handle().pipe(map((body: unknown) => render(body, options)));
  }
}

/**
 * Says that the answer depends on `Accept`; when the request prefers `text/csv`, returns what turns
 * a handler's result into the CSV answer. Also used by direct routes (`direct-route.ts`).
 */
export function csvRendererFor(
  request: FastifyRequest,
  reply: FastifyReply,
): ((body: unknown, options?: CsvRenderingOptions) => unknown) | undefined {
  void reply.header('vary', 'Accept');
  if (!prefersCsv(request.headers.accept)) return undefined;
  return (body, options) => {
    if (!isRenderable(body)) return body;
    void reply.header('content-type', CSV_CONTENT_TYPE);
    return renderCsv(body, options);
  };
}

/** Records are rendered; bytes and streams are already a representation of their own. */
function isRenderable(body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  if (ArrayBuffer.isView(body) || body instanceof StreamableFile) return false;
  return typeof (body as { pipe?: unknown }).pipe !== 'function';
}
