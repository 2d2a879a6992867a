import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { reasonOf } from '@guidepost/platform-failures';
import { PeriodicTask } from '@guidepost/platform-scheduling';
import { BlobStore } from './blob-store.port';
import { MAX_LINK_TTL_SECONDS } from './link-lifetime';

/** Where export files live (`exportBlobKey`). */
const EXPORTS_PREFIX = 'exports/';
/** Kept this long past their link's end, so a download started in its last minute still finishes. */
const EXPORT_GRACE_MS = 60 * 60 * 1000;
/** A write unfinished for this long was abandoned (the longest upload takes minutes, not a day). */
const ABANDONED_WRITE_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the blob store from growing without bound: every `intervalMs` (`GUIDEPOST_BLOB_SWEEP_INTERVAL_MS`) it deletes
 * export files whose one-week link has expired (with them goes any profile data they held) and frees
 * what abandoned writes left behind (S3 multipart parts whose abort failed while the store was down,
 * staging files of a process that died). Staged imports are deleted by the import worker as soon as
 * their job ends. Every replica may sweep: deleting twice is harmless.
 */
export class BlobRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BlobRetention.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly blobs: BlobStore,
    intervalMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.task = new PeriodicTask({
      intervalMs,
      run: () => this.sweep(),
      onFailure: (error) => this.logger.warn(`blob sweep failed, retrying at the next one: ${reasonOf(error)}`),
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep (or the one in hand); a failure is logged and the next sweep tries again. */
  sweepOnce(): Promise<void> {
    return this.task.runOnce();
  }

  private async sweep(): Promise<void> {
    const now = this.now().getTime();
    const exportsExpiredBefore = new Date(now - MAX_LINK_TTL_SECONDS * 1000 - EXPORT_GRACE_MS);
    const exports = await this.blobs.deleteOlderThan(EXPORTS_PREFIX, exportsExpiredBefore);
    const abandoned = await this.blobs.discardAbandonedWrites(new Date(now - ABANDONED_WRITE_AGE_MS));
    if (exports + abandoned > 0)
      this.logger.log(`blob sweep: deleted ${exports} expired export files, freed ${abandoned} abandoned writes`);
  }
}
