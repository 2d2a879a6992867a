import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { reasonOf } from '@guidepost/platform-failures';
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
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly blobs: BlobStore,
    private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweepOnce(), this.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep (at most one at a time); a failure is logged and the next sweep tries again. */
  sweepOnce(now = new Date()): Promise<void> {
    this.sweeping ??= this.sweep(now)
      .catch((error: unknown) => this.logger.warn(`blob sweep failed, retrying at the next one: ${reasonOf(error)}`))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweep(now: Date): Promise<void> {
    const exportsExpiredBefore = new Date(now.getTime() - MAX_LINK_TTL_SECONDS * 1000 - EXPORT_GRACE_MS);
    const exports = await this.blobs.deleteOlderThan(EXPORTS_PREFIX, exportsExpiredBefore);
    const abandoned = await this.blobs.discardAbandonedWrites(new Date(now.getTime() - ABANDONED_WRITE_AGE_MS));
    if (exports + abandoned > 0) this.logger.log(`blob sweep: deleted ${exports} expired export files, freed ${abandoned} abandoned writes`);
  }
}
