import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ProfileKind } from '../domain/profile-kind';
import type { ProfileProperties } from '../domain/profile-properties';
import { PROFILE_SCHEMA } from './profile-schema';

/** The table of each kind and its id column: constants, the only text spliced into these statements. */
const TABLES: Readonly<Record<ProfileKind, { readonly table: string; readonly id: string }>> = {
  user: { table: 'profile.user_profiles', id: 'user_id' },
  group: { table: 'profile.group_profiles', id: 'group_id' },
};

/**
 * User and group profiles. A write merges its properties into the stored ones (`jsonb ||`: the keys
 * written take their new values, the others are kept), creating the profile when there is none. Ids
 * and properties travel as array parameters (`unnest`), so a batch of any size neither splices text
 * into SQL nor hits the parameter limit. Writes run in the caller's transaction; reads need none.
 * Writes lock their rows in id order, so that two overlapping batches wait for each other instead of
 * deadlocking.
 */
@Injectable()
export class ProfileRepository {
  constructor(@InjectDataSource(PROFILE_SCHEMA) private readonly dataSource: DataSource) {}

  async find(kind: ProfileKind, accountId: string, id: string): Promise<ProfileProperties | null> {
    const { table, id: idColumn } = TABLES[kind];
    const rows: { properties: ProfileProperties }[] = await this.dataSource.query(
      `SELECT properties FROM ${table} WHERE account_id = $1 AND ${idColumn} = $2`,
      [accountId, id],
    );
    return rows.length === 0 ? null : rows[0].properties;
  }

  /** The user profiles of the given users, in one query; users without a profile are absent. */
  async findUsers(accountId: string, userIds: readonly string[]): Promise<Map<string, ProfileProperties>> {
    const rows: { user_id: string; properties: ProfileProperties }[] = await this.dataSource.query(
      `SELECT user_id, properties FROM profile.user_profiles WHERE account_id = $1 AND user_id = ANY($2::text[])`,
      [accountId, userIds],
    );
    return new Map(rows.map((row) => [row.user_id, row.properties]));
  }

  /** Merges each profile's own properties; the ids must be distinct (one statement, one update per row). */
  async merge(manager: EntityManager, kind: ProfileKind, accountId: string, writes: ReadonlyMap<string, ProfileProperties>): Promise<void> {
    if (writes.size === 0) return;
    const { table, id: idColumn } = TABLES[kind];
    await manager.query(
      `INSERT INTO ${table} AS stored (account_id, ${idColumn}, properties, updated_at)
       SELECT $1, id, written, now() FROM unnest($2::text[], $3::jsonb[]) AS writes (id, written) ORDER BY id
       ON CONFLICT (account_id, ${idColumn})
       DO UPDATE SET properties = stored.properties || EXCLUDED.properties, updated_at = EXCLUDED.updated_at`,
      [accountId, [...writes.keys()], [...writes.values()].map((properties) => JSON.stringify(properties))],
    );
  }

  /** Merges the same properties into the profiles of several users; the ids must be distinct. */
  async mergeIntoUsers(manager: EntityManager, accountId: string, userIds: readonly string[], written: ProfileProperties): Promise<void> {
    if (userIds.length === 0) return;
    await manager.query(
      `INSERT INTO profile.user_profiles AS stored (account_id, user_id, properties, updated_at)
       SELECT $1, id, $3::jsonb, now() FROM unnest($2::text[]) AS ids (id) ORDER BY id
       ON CONFLICT (account_id, user_id)
       DO UPDATE SET properties = stored.properties || EXCLUDED.properties, updated_at = EXCLUDED.updated_at`,
      [accountId, userIds, JSON.stringify(written)],
    );
  }

  /** Removes a user's profile; false when there was none. */
  async deleteUser(manager: EntityManager, accountId: string, userId: string): Promise<boolean> {
    const [, deleted]: [unknown[], number] = await manager.query(
      `DELETE FROM profile.user_profiles WHERE account_id = $1 AND user_id = $2`,
      [accountId, userId],
    );
    return deleted > 0;
  }
}
