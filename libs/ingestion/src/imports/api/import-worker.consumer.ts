import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ImportStaged } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { ImportWorker } from '../application/import-worker.service';

export const IMPORT_WORKER_GROUP = 'ingestion.import-worker';

/**
 * Runs staged imports. Not one transaction: an import writes a transaction per batch with
 * deterministic ids, so a redelivered message (after a crash or a restart) re-reads the file and
 * publishes nothing twice, and a finished job is skipped. While a store is down the import waits and
 * resumes; an import given up on for good ends its job `Failed`.
 */
@Injectable()
export class ImportWorkerConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly worker: ImportWorker,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: ImportStaged,
      group: IMPORT_WORKER_GROUP,
      handle: (message) => this.worker.run(message.payload),
      onGiveUp: (message, reason) => this.worker.giveUp(message.payload, reason),
    });
  }
}
