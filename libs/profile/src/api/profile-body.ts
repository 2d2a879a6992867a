import type { Readable } from 'node:stream';
import { DomainError } from '@guidepost/platform-errors';
import { csvColumnsOf, csvRows, type InboundBody, typedCsvRecord } from '@guidepost/platform-http';
import type { ProfileProperties } from '../domain/profile-properties';

/**
 * The properties of a `PATCH .../profile` body: a JSON object, or CSV with a header line naming the
 * properties and exactly one row of values (typed like every CSV intake: see `typedCsvCell`). Both
 * forms go through the same schema (`parse`), so the limits of an update are the same in either.
 * Anything else is a 400 naming the body, or the line at fault.
 */
export async function profilePropertiesOf(body: InboundBody, parse: (value: unknown) => ProfileProperties): Promise<ProfileProperties> {
  switch (body.kind) {
    case 'empty':
      throw new DomainError('invalid_request', 'body: is required (the profile properties, as a JSON object)');
    case 'json':
      return parse(body.value);
    case 'records':
      // `@AcceptsBody('json', 'csv')` answers 415 to anything else before the handler runs.
      if (body.format !== 'csv') throw new DomainError('unsupported_media_type', 'This endpoint accepts application/json or text/csv');
      return parse(await csvProfileOf(body.stream));
  }
}

async function csvProfileOf(stream: Readable): Promise<ProfileProperties> {
  const rows = csvRows(stream);
  const header = await rows.next();
  if (header.done) throw new DomainError('invalid_request', 'body: CSV needs a header line naming the properties and one row of values');
  const columns = csvColumnsOf(header.value);
  const values = await rows.next();
  if (values.done) throw new DomainError('invalid_request', `line ${header.value.line + 1}: a row of values is required under the header`);
  const { line, cells } = values.value;
  if (cells.length !== columns.length) {
    throw new DomainError('invalid_request', `line ${line}: has ${cells.length} values, the header names ${columns.length} columns`);
  }
  const extra = await rows.next();
  if (!extra.done) throw new DomainError('invalid_request', `line ${extra.value.line}: a profile update takes exactly one row of values`);
  return typedCsvRecord(columns, cells);
}
