import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { ApiKeyLookup, type ActiveApiKey } from '../application/api-key-lookup.port';
import { ApiKeyStore } from '../application/api-key-store.port';
import { GATEWAY_SCHEMA } from '../gateway-schema';
import { ApiKeyEntity } from './api-key.entity';

@Injectable()
export class ApiKeyRepository implements ApiKeyLookup, ApiKeyStore {
  constructor(@InjectRepository(ApiKeyEntity, GATEWAY_SCHEMA) private readonly apiKeys: Repository<ApiKeyEntity>) {}

  async findActive(key: string): Promise<ActiveApiKey | undefined> {
    const found = await this.apiKeys.findOneBy({ key, revokedAt: IsNull() });
    return found ? { key: found.key, accountId: found.accountId, secretSha256: found.secretSha256 } : undefined;
  }

  async insert(key: string, accountId: string, secretSha256: Buffer): Promise<ApiKeyEntity> {
    const entity = this.apiKeys.create({ key, accountId, secretSha256, createdAt: new Date(), revokedAt: null });
    return this.apiKeys.save(entity);
  }

  async revoke(accountId: string, key: string): Promise<boolean> {
    const existing = await this.apiKeys.findOneBy({ key, accountId });
    if (!existing) return false;
    await this.apiKeys.update({ key, accountId, revokedAt: IsNull() }, { revokedAt: new Date() });
    return true;
  }
}
