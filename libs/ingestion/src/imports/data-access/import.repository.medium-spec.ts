import { openServiceDatabase, type OpenServiceDatabase } from '@guidepost/platform-database/testing';
import { INGESTION_DATABASE } from '../../data-access/ingestion-database';
import { ImportRepository } from './import.repository';

/** The import's failures, against the ingestion schema's migrations. */
describe('ImportRepository', () => {
  let database: OpenServiceDatabase;
  let repository: ImportRepository;

  beforeAll(async () => {
    database = await openServiceDatabase(INGESTION_DATABASE);
    repository = new ImportRepository(database.dataSource);
    // Failures belong to a job of the registry.
    await database.dataSource.query(
      `INSERT INTO ingestion.jobs (id, account_id, name, started_at, status) VALUES ('job-1', 'a', 'import', now(), 'IN_PROGRESS'), ('job-2', 'a', 'import', now(), 'IN_PROGRESS')`,
    );
  });

  afterAll(() => database?.release());

  it('keeps one failure per line, the last recorded, and pages them in line order', async () => {
    const { manager } = database.dataSource;
    await repository.upsert(manager, 'job-1', [
      { line: 3, field: 'timestamp', reason: 'is not a date' },
      { line: 2, field: null, reason: 'is not JSON' },
    ]);
    // A worker taken up again after a crash records line 3 again.
    await repository.upsert(manager, 'job-1', [{ line: 3, field: 'user_id', reason: 'is empty' }]);
    await repository.upsert(manager, 'job-2', [{ line: 1, field: null, reason: 'another job' }]);
    expect(await repository.page('job-1', 0, 10)).toEqual([
      { line: 2, field: null, reason: 'is not JSON' },
      { line: 3, field: 'user_id', reason: 'is empty' },
    ]);
    expect(await repository.page('job-1', 2, 10)).toEqual([{ line: 3, field: 'user_id', reason: 'is empty' }]);
  });
});
