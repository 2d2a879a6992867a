import { Readable } from 'node:stream';
import { Controller, Get, Headers, Param, StreamableFile } from '@nestjs/common';
import { notFound } from '@guidepost/platform-errors';
import { IdentifierParam, prefersCsv, renderCsv } from '@guidepost/platform-http';
import { JobRepository } from '../../jobs/data-access/job.repository';
import { ImportRepository } from '../data-access/import.repository';
import type { RowFailure } from '../domain/row-failure';

/** Failures read from the database per round trip, and written per chunk of the response. */
const FAILURES_PER_PAGE = 5_000;
const CSV_HEADER = 'line,field,reason\r\n';

/**
 * `GET /jobs/{job_id}/failures`: every row an import could not import, in line order, as a JSON array
 * of `{line, field, reason}` (CSV under `Accept: text/csv`). Streamed page by page: a job may have
 * millions. A job of the account that is not an import has none; a job the account does not have is 404.
 */
@Controller('v2/accounts/:account_id/jobs/:job_id/failures')
export class ImportFailuresController {
  constructor(
    private readonly jobs: JobRepository,
    private readonly failures: ImportRepository,
  ) {}

  @Get()
  async list(
    @Param('account_id') accountId: string,
    @Param('job_id', IdentifierParam) jobId: string,
    @Headers('accept') accept?: string,
  ): Promise<StreamableFile> {
    if (!(await this.jobs.findOne(accountId, jobId))) throw notFound('Job', jobId);
    const csv = prefersCsv(accept);
    const body = Readable.from(csv ? this.csvOf(jobId) : this.jsonOf(jobId), { objectMode: false });
    return new StreamableFile(body, { type: csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8' });
  }

  private async *jsonOf(jobId: string): AsyncGenerator<string> {
    let separator = '[';
    for await (const page of this.pages(jobId)) {
      yield separator + page.map((failure) => JSON.stringify(failure)).join(',');
      separator = ',';
    }
    yield separator === '[' ? '[]' : ']';
  }

  private async *csvOf(jobId: string): AsyncGenerator<string> {
    yield CSV_HEADER;
    for await (const page of this.pages(jobId)) {
      const rendered = renderCsv(page);
      // Every page renders with the same header line; it is written once, above.
      yield rendered.slice(rendered.indexOf('\r\n') + 2);
    }
  }

  private async *pages(jobId: string): AsyncGenerator<RowFailure[]> {
    for (let afterLine = 0; ;) {
      const page = await this.failures.page(jobId, afterLine, FAILURES_PER_PAGE);
      if (page.length > 0) yield page;
      if (page.length < FAILURES_PER_PAGE) return;
      afterLine = page[page.length - 1].line;
    }
  }
}
