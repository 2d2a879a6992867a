import { setTimeout as delay } from 'node:timers/promises';
import { openServiceDatabase, type OpenServiceDatabase } from '@guidepost/platform-database/testing';
import type { SegmentRecord } from '../domain/segment';
import { SegmentEntity } from './segment.entity';
import { SEGMENT_DATABASE } from './segment-database';
import { SegmentRepository } from './segment.repository';

function segment(id: string, createdAt: string): SegmentRecord {
  const at = new Date(createdAt);
  return {
    accountId: 'account-1',
    id,
    name: `segment ${id}`,
    description: '',
    createdAt: at,
    updatedAt: at,
    createdBy: 'key',
    updatedBy: 'key',
  };
}

/** Segments and their locks against the segment schema's migrations. */
describe('SegmentRepository', () => {
  let database: OpenServiceDatabase;
  let repository: SegmentRepository;

  beforeAll(async () => {
    database = await openServiceDatabase(SEGMENT_DATABASE);
    repository = new SegmentRepository(database.dataSource.getRepository(SegmentEntity));
  });

  afterAll(() => database?.release());

  it("lists an account's segments oldest first, finds and deletes them", async () => {
    const { manager } = database.dataSource;
    await repository.save(manager, segment('b', '2026-01-02T00:00:00Z'));
    await repository.save(manager, segment('a', '2026-01-03T00:00:00Z'));
    await repository.save(manager, segment('c', '2026-01-01T00:00:00Z'));
    expect((await repository.list('account-1')).map((found) => found.id)).toEqual(['c', 'b', 'a']);
    expect(await repository.list('account-2')).toEqual([]);
    expect((await repository.find('account-1', 'b'))?.name).toBe('segment b');
    expect(await repository.delete('account-1', 'c')).toBe(true);
    expect(await repository.delete('account-1', 'c')).toBe(false);
    expect(await repository.find('account-1', 'c')).toBeNull();
  });

  it('lets a segment be updated but not deleted while a membership change holds it', async () => {
    const events: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const membershipChange = database.dataSource.transaction(async (manager) => {
      expect(await repository.existsForMembership(manager, 'account-1', 'a')).toBe(true);
      events.push('membership change holds a');
      await released;
      events.push('membership change ends');
    });
    while (events.length === 0) await delay(5);

    await database.dataSource.transaction(async (manager) => {
      expect((await repository.findForUpdate(manager, 'account-1', 'a'))?.id).toBe('a');
      events.push('update locked a');
    });
    const deletion = repository.delete('account-1', 'a').then((deleted) => events.push(`deleted: ${deleted}`));
    await delay(200);
    release();
    await Promise.all([membershipChange, deletion]);
    expect(events).toEqual(['membership change holds a', 'update locked a', 'membership change ends', 'deleted: true']);
  });
});
