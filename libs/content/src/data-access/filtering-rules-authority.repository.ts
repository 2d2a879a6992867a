import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import type { StoredFilteringRules } from '../domain/ingestion-filtering-rules';
import { CONTENT_SCHEMA } from './content-schema';
import { IngestionFilteringRulesEntity } from './ingestion-filtering-rules.entity';

/**
 * The authoritative store of the accounts' ingestion filtering rules: the only place they are written
 * (through the public API). Every change is announced by `IngestionFilteringRulesChanged`, from which
 * the profile and ingestion services keep their own copies (`ProfileFilteringRulesCopy`,
 * `IngestionFilteringRulesCopy`, both a `FilteringRulesCopy`).
 */
@Injectable()
export class FilteringRulesAuthority {
  constructor(
    @InjectRepository(IngestionFilteringRulesEntity, CONTENT_SCHEMA) private readonly reader: Repository<IngestionFilteringRulesEntity>,
  ) {}

  /** The account's stored rules; null when it never set any. */
  find(accountId: string): Promise<StoredFilteringRules | null> {
    return this.reader.findOneBy({ accountId });
  }

  async replace(manager: EntityManager, rules: StoredFilteringRules): Promise<void> {
    await manager.upsert(IngestionFilteringRulesEntity, { ...rules }, ['accountId']);
  }
}
