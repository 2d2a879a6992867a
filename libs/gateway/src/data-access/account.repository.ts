import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AccountStore } from '../application/account-store.port';
import { GATEWAY_SCHEMA } from '../gateway-schema';
import { AccountEntity } from './account.entity';

@Injectable()
export class AccountRepository implements AccountStore {
  constructor(@InjectRepository(AccountEntity, GATEWAY_SCHEMA) private readonly accounts: Repository<AccountEntity>) {}

  async insertIfAbsent(id: string, name: string): Promise<AccountEntity | undefined> {
    const account = this.accounts.create({ id, name, createdAt: new Date() });
    // One statement, so two concurrent creations of one id cannot both succeed.
    const result = await this.accounts.createQueryBuilder().insert().values(account).orIgnore().returning(['id']).execute();
    return (result.raw as unknown[]).length === 1 ? account : undefined;
  }

  list(): Promise<AccountEntity[]> {
    return this.accounts.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  exists(id: string): Promise<boolean> {
    return this.accounts.existsBy({ id });
  }
}
