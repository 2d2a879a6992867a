import { Injectable } from '@nestjs/common';
import { ReadinessProbe } from '@guidepost/platform-observability';
import { MinioBlobStore } from './minio-blob-store.adapter';

/** Readiness of the S3 blob store: its bucket answers (the folder adapter needs no probe). */
@Injectable()
export class BlobStoreProbe extends ReadinessProbe {
  readonly name = 'blob-store';

  constructor(private readonly store: MinioBlobStore) {
    super();
  }

  check(): Promise<void> {
    return this.store.checkBucket();
  }
}
