import { Injectable, Logger } from '@nestjs/common';
import type { PayloadOf, ProfileRow, ProfileRowsImported } from '@guidepost/contracts-events';
import { identifierProblem } from '@guidepost/contracts-http';
import type { Transaction } from '@guidepost/platform-database';
import { type LineOfProperties, mergeInLineOrder, unstorableProblem } from '../domain/profile-properties';
import { profileUpdateEvent } from '../domain/profile-update-events';
import { ProfileRepository } from '../data-access/profile.repository';
import { IntakeFilter } from './intake-filter';
import { ProfileUpdateRecorder } from './profile-update-recorder';

/** Rows merged per statement: bounds the size of one statement whatever the size of a message. */
const ROWS_PER_STATEMENT = 5_000;

/**
 * Merges the rows of profile and group imports (validated by the import worker) into the profiles,
 * filtered like any other write. User rows record a `svc:profile_update` each, with ids derived from
 * the job and line, so a replayed batch duplicates no event.
 */
@Injectable()
export class ProfileImportsService {
  private readonly logger = new Logger(ProfileImportsService.name);

  constructor(
    private readonly profiles: ProfileRepository,
    private readonly filter: IntakeFilter,
    private readonly updates: ProfileUpdateRecorder,
  ) {}

  /** Applies one message of rows in the consumer's transaction (run once per message). */
  async apply(tx: Transaction, messageId: string, batch: PayloadOf<typeof ProfileRowsImported>): Promise<void> {
    const { accountId, jobId, profileKind: kind } = batch;
    const rules = await this.filter.rulesOf(tx.manager, accountId);
    const written: LineOfProperties[] = batch.rows
      .filter((row) => this.isStorable(jobId, row))
      .map((row) => {
        const properties = this.filter.keepProperties(rules, { kind, intake: 'import', accountId, id: row.id }, row.properties);
        return { id: row.id, line: row.line, properties };
      });

    const merged = [...mergeInLineOrder(written)];
    for (let start = 0; start < merged.length; start += ROWS_PER_STATEMENT) {
      await this.profiles.merge(tx.manager, kind, accountId, new Map(merged.slice(start, start + ROWS_PER_STATEMENT)));
    }
    if (kind !== 'user') return;
    const now = new Date(batch.importedAt);
    const events = written
      .filter((row) => Object.keys(row.properties).length > 0)
      .map((row) => profileUpdateEvent(`${jobId}:${row.line}`, row.id, row.properties, now));
    this.updates.record(tx, rules, 'import', accountId, events, (index) => `${messageId}:profile-updates:${index}`);
  }

  /**
   * The import worker refuses ids and values PostgreSQL cannot store, with the same checks; a row that
   * still has one is logged and skipped here rather than failing, again and again, the whole message
   * with the good rows in it.
   */
  private isStorable(jobId: string, row: ProfileRow): boolean {
    const idProblem = identifierProblem(row.id);
    const problem = idProblem === undefined ? unstorableProblem(row.properties) : { field: 'id', reason: idProblem };
    if (problem === undefined) return true;
    this.logger.error(`import job ${jobId}, line ${row.line}: skipped, ${problem.field}: ${problem.reason}`);
    return false;
  }
}
