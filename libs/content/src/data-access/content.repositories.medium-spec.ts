import { openServiceDatabase, type OpenServiceDatabase } from '@guidepost/platform-database/testing';
import { CONTENT_DATABASE } from './content-database';
import { TagRepository } from './content.repositories';
import { TagEntity } from './tag.entity';

function tag(accountId: string, id: string, name: string): TagEntity {
  const at = new Date('2026-01-01T00:00:00Z');
  return Object.assign(new TagEntity(), { accountId, id, name, createdAt: at, updatedAt: at, createdBy: 'key', updatedBy: 'key' });
}

/** Account-scoped content records (here tags) against the content schema's migrations. */
describe('the content repositories', () => {
  let database: OpenServiceDatabase;
  let tags: TagRepository;

  beforeAll(async () => {
    database = await openServiceDatabase(CONTENT_DATABASE);
    tags = new TagRepository(database.dataSource.getRepository(TagEntity));
  });

  afterAll(() => database?.release());

  it("list an account's records by name in code point order (capitals first, accented letters last), then by id", async () => {
    const { manager } = database.dataSource;
    await tags.write(manager, [
      tag('acme', '3', 'beta'),
      tag('acme', '1', 'Zeta'),
      tag('acme', '2', 'beta'),
      tag('acme', '4', 'Älpha'),
      tag('other', '5', 'alpha'),
    ]);
    expect((await tags.list({ accountId: 'acme' })).map((found) => `${found.name}#${found.id}`)).toEqual([
      'Zeta#1',
      'beta#2',
      'beta#3',
      'Älpha#4',
    ]);
  });

  it('replace a stored record written again with the same key, and keep accounts apart', async () => {
    const { manager } = database.dataSource;
    await tags.write(manager, [tag('acme', '1', 'renamed')]);
    expect((await tags.findOne({ accountId: 'acme' }, '1'))?.name).toBe('renamed');
    expect(await tags.findOne({ accountId: 'other' }, '1')).toBeNull();
    const locked = await database.dataSource.transaction((transaction) =>
      tags.findManyForUpdate(transaction, { accountId: 'acme' }, ['1', '2', 'missing']),
    );
    expect([...locked.keys()].sort()).toEqual(['1', '2']);
  });
});
