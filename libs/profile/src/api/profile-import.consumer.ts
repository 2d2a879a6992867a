import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ProfileRowsImported } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { ProfileImportsService } from '../application/profile-imports.service';
import { PROFILE_SCHEMA } from '../data-access/profile-schema';

export const PROFILE_IMPORT_GROUP = 'profile.import';

/** Merges imported profile and group rows, each message once whatever the redeliveries. */
@Injectable()
export class ProfileImportConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly imports: ProfileImportsService,
    @InjectUnitOfWork(PROFILE_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: ProfileRowsImported,
      group: PROFILE_IMPORT_GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(PROFILE_IMPORT_GROUP, message.id, (tx) => this.imports.apply(tx, message.id, message.payload));
      },
    });
  }
}
