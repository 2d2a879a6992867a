import { DomainError } from '@guidepost/platform-errors';

/**
 * The file of an import cannot be read as a whole (not UTF-8 text, a CSV header without the columns
 * its rows need, the staged upload gone): the one failure that ends the job `Failed`, with `detail` as
 * its reason. A row that cannot be imported is never this: it is a `RowProblem` value, counted and
 * listed among the job's failures while the rest of the file is imported. A 400 where it is raised
 * while the request is still open.
 */
export class UnreadableFile extends DomainError {
  constructor(detail: string) {
    super('invalid_request', detail);
    this.name = 'UnreadableFile';
  }
}
