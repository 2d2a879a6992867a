import { type EntityManager, type FindOptionsOrder, type FindOptionsWhere, In, type ObjectLiteral, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { PublicationState } from '../domain/publication';

/** A named record of one account (flows, pins and mobile experiences, tags). */
export interface ScopedRow extends ObjectLiteral {
  id: string;
  name: string;
}

/**
 * Access to one table of account-scoped records. `Scope` holds the key columns besides `id` (the
 * account, and for experiences the kind). Reads go through the injected repository; writes take the
 * transaction's entity manager, so that they commit with the rest of a unit of work.
 */
export abstract class ScopedRecordRepository<E extends ScopedRow, Scope extends Partial<E>> {
  protected constructor(
    protected readonly reader: Repository<E>,
    private readonly conflictColumns: string[],
  ) {}

  /** Ordered by name, then id ("C" collation: code point order), so every list is stable. */
  list(scope: Scope): Promise<E[]> {
    return this.reader.find({ where: this.whereOf(scope), order: { name: 'ASC', id: 'ASC' } as FindOptionsOrder<E> });
  }

  findOne(scope: Scope, id: string): Promise<E | null> {
    return this.reader.findOneBy(this.whereOf(scope, id));
  }

  findForUpdate(manager: EntityManager, scope: Scope, id: string): Promise<E | null> {
    return manager.findOne(this.reader.target, { where: this.whereOf(scope, id), lock: { mode: 'pessimistic_write' } });
  }

  /** The stored records among `ids`, locked until the transaction ends, by id. */
  async findManyForUpdate(manager: EntityManager, scope: Scope, ids: readonly string[]): Promise<Map<string, E>> {
    const rows = await manager.find(this.reader.target, {
      where: { ...this.whereOf(scope), id: In([...ids]) } as FindOptionsWhere<E>,
      lock: { mode: 'pessimistic_write' },
    });
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Inserts the records, or replaces the stored ones with the same key. */
  async write(manager: EntityManager, records: readonly E[]): Promise<void> {
    await manager.upsert(this.reader.target, records as unknown as QueryDeepPartialEntity<E>[], this.conflictColumns);
  }

  protected whereOf(scope: Scope, id?: string): FindOptionsWhere<E> {
    return id === undefined ? { ...scope } : { ...scope, id };
  }
}

/** Records that can be published (flows and every experience kind). */
export abstract class PublishableRecordRepository<
  E extends ScopedRow & PublicationState,
  Scope extends Partial<E>,
> extends ScopedRecordRepository<E, Scope> {
  /** Writes what publishing changes: the flag, the times and, for the kinds that have one, the lifecycle label. */
  async setPublication(manager: EntityManager, scope: Scope, id: string, record: PublicationState): Promise<void> {
    const { published, publishedAt, updatedAt, state } = record;
    const changes = { published, publishedAt, updatedAt, ...(state !== undefined && { state }) } as unknown as QueryDeepPartialEntity<E>;
    await manager.update(this.reader.target, this.whereOf(scope, id), changes);
  }
}
