import { Type, type Static } from '@sinclair/typebox';

/** Every 4xx and 5xx response body. */
export const ProblemSchema = Type.Object(
  {
    error: Type.Literal(true),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    title: Type.String({ description: 'HTTP status phrase' }),
    detail: Type.String({ description: 'What was wrong: the field, row or line at fault' }),
  },
  { $id: 'Problem' },
);
export type Problem = Static<typeof ProblemSchema>;

export const StatusAcknowledgementSchema = Type.Object(
  { status: Type.Literal(200), title: Type.Literal('OK') },
  { $id: 'StatusAcknowledgement' },
);
export type StatusAcknowledgement = Static<typeof StatusAcknowledgementSchema>;

export const AsyncAcknowledgementSchema = Type.Object(
  {
    status: Type.Literal(202),
    title: Type.Literal('Accepted'),
    job_id: Type.String(),
    job_url: Type.String({ format: 'uri', description: 'Absolute URL of the job resource; answers at once' }),
  },
  { $id: 'AsyncAcknowledgement' },
);
export type AsyncAcknowledgement = Static<typeof AsyncAcknowledgementSchema>;

export function statusAcknowledgement(): StatusAcknowledgement {
  return { status: 200, title: 'OK' };
}

/** Absolute URL of a job resource under the request's public base URL (`@PublicBaseUrl()`, platform-http). */
export function jobUrlOf(baseUrl: string, accountId: string, jobId: string): string {
  return `${baseUrl}/v2/accounts/${encodeURIComponent(accountId)}/jobs/${encodeURIComponent(jobId)}`;
}

/** The 202 of an asynchronous operation, pointing at the job that reports its outcome. */
export function asyncAcknowledgement(baseUrl: string, accountId: string, jobId: string): AsyncAcknowledgement {
  return { status: 202, title: 'Accepted', job_id: jobId, job_url: jobUrlOf(baseUrl, accountId, jobId) };
}

/** How every CSV of the API, answers and export files, writes a cell that a spreadsheet would run as a formula. */
export const CSV_FORMULA_RULE =
  'A cell (header cells too) that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is neutralised against CSV ' +
  "injection: it gets a single quote `'` before it and is quoted; a cell that is wholly a number (`-5`) is left as it is.";
