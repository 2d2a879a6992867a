import type { BodyFormat } from './inbound-body';

/**
 * The Content-Type values each body format arrives with: the only media types this server parses.
 * `application/x-ndjson` is the older name many clients still send; `multipart/form-data` is what
 * HTML forms and most HTTP libraries produce for the same upload as `multipart/mixed`.
 */
export const MEDIA_TYPES_OF: Readonly<Record<BodyFormat, readonly string[]>> = {
  json: ['application/json'],
  ndjson: ['application/ndjson', 'application/x-ndjson'],
  csv: ['text/csv'],
  file: ['multipart/mixed', 'multipart/form-data'],
};

const ALL_FORMATS = Object.keys(MEDIA_TYPES_OF) as BodyFormat[];

/** `application/json, application/ndjson or text/csv`: the media types of the given formats, for messages. */
export function describeMediaTypes(formats: readonly BodyFormat[] = ALL_FORMATS): string {
  const types = formats.flatMap((format) => MEDIA_TYPES_OF[format]);
  return types.length === 1 ? types[0] : `${types.slice(0, -1).join(', ')} or ${types[types.length - 1]}`;
}

/** The bare, lower-case media type of a Content-Type header (`Text/CSV; charset=utf-8` -> `text/csv`). */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const end = contentType.indexOf(';');
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/** The body format a media type belongs to, if it is one this server takes. */
export function bodyFormatOf(mediaType: string | undefined): BodyFormat | undefined {
  if (mediaType === undefined) return undefined;
  return ALL_FORMATS.find((format) => MEDIA_TYPES_OF[format].includes(mediaType));
}

/** How to name what the client sent: `Content-Type 'text/plain'`, or a body without one. */
export function describeSentMediaType(mediaType: string | undefined): string {
  return mediaType ? `Content-Type '${mediaType}'` : 'a body without Content-Type';
}

/** `Content-Type 'text/plain' is not supported; send application/json, ...` */
export function unsupportedMediaTypeDetail(sent: string, accepted?: readonly BodyFormat[]): string {
  return `${sent} is not supported; ${accepted ? 'this endpoint takes' : 'send'} ${describeMediaTypes(accepted)}`;
}
