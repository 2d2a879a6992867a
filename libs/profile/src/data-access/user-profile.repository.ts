import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { PROFILE_SCHEMA } from './profile-database';
import { UserProfileEntity } from './user-profile.entity';

@Injectable()
export class UserProfileRepository {
  constructor(@InjectRepository(UserProfileEntity, PROFILE_SCHEMA) private readonly profiles: Repository<UserProfileEntity>) {}

  /**
   * The profiles of the given users, in one query. The ids travel as one array parameter
   * (`= ANY($2)`), so a batch of any size neither splices text into SQL nor hits the parameter limit.
   */
  findByUserIds(accountId: string, userIds: readonly string[]): Promise<UserProfileEntity[]> {
    return this.profiles
      .createQueryBuilder('profile')
      .where('profile.account_id = :accountId', { accountId })
      .andWhere('profile.user_id = ANY(:userIds)', { userIds })
      .getMany();
  }
}
