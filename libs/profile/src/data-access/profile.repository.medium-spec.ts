import { openServiceDatabase, type OpenServiceDatabase } from '@guidepost/platform-database/testing';
import { PROFILE_DATABASE } from './profile-database';
import { ProfileRepository } from './profile.repository';

/** Profile writes and reads against the profile schema's migrations. */
describe('ProfileRepository', () => {
  let database: OpenServiceDatabase;
  let repository: ProfileRepository;

  beforeAll(async () => {
    database = await openServiceDatabase(PROFILE_DATABASE);
    repository = new ProfileRepository(database.dataSource);
  });

  afterAll(() => database?.release());

  it('merges written properties into the stored ones, creating a profile that is missing', async () => {
    const { manager } = database.dataSource;
    await repository.merge(manager, 'user', 'account-1', new Map([['user-1', { plan: 'free', seats: 1 }]]));
    await repository.merge(
      manager,
      'user',
      'account-1',
      new Map([
        ['user-1', { plan: 'pro' }],
        ['user-2', { plan: 'free' }],
      ]),
    );
    expect(await repository.find('user', 'account-1', 'user-1')).toEqual({ plan: 'pro', seats: 1 });
    expect(await repository.findUsers('account-1', ['user-1', 'user-2', 'user-3'])).toEqual(
      new Map([
        ['user-1', { plan: 'pro', seats: 1 }],
        ['user-2', { plan: 'free' }],
      ]),
    );
  });

  it('keeps accounts and kinds apart', async () => {
    const { manager } = database.dataSource;
    await repository.merge(manager, 'group', 'account-1', new Map([['user-1', { name: 'a group' }]]));
    expect(await repository.find('user', 'account-2', 'user-1')).toBeNull();
    expect(await repository.find('group', 'account-1', 'user-1')).toEqual({ name: 'a group' });
    expect(await repository.find('user', 'account-1', 'user-1')).toEqual({ plan: 'pro', seats: 1 });
  });
});
