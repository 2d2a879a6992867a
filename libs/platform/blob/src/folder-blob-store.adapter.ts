import { randomUUID } from 'node:crypto';
import { createWriteStream, type Stats } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidBlobKey } from './blob-key';
import type { BlobLinkSigner } from './blob-link-signer';
import { BlobStore, type OpenedBlob, type SignedBlobLink } from './blob-store.port';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** Uploads and export files are every account's data: readable by this user only, whatever the umask. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

interface BlobMetadata {
  readonly contentType: string;
}

/**
 * The blob store of the standalone shape: one file per object under `<root>/objects`, its content
 * type beside it under `<root>/meta`. Writes stream into `<root>/tmp` (same file system) and are
 * renamed into place once complete and flushed, so a reader sees the old object or the new one,
 * never a part. Links are served by `BlobDownloadController`.
 */
export class FolderBlobStore extends BlobStore {
  constructor(
    private readonly root: string,
    private readonly signer: BlobLinkSigner,
  ) {
    super();
  }

  async put(key: string, body: Readable, contentType: string): Promise<{ bytes: number }> {
    assertValidBlobKey(key);
    const object = await this.stage((path) => pipeline(body, createWriteStream(path, { flags: 'wx', mode: FILE_MODE })));
    const staged = [object.path];
    try {
      const metadata: BlobMetadata = { contentType };
      const meta = await this.stage((path) => writeFile(path, JSON.stringify(metadata), { flag: 'wx', mode: FILE_MODE }));
      staged.push(meta.path);
      // Metadata first: whoever finds the new object also finds its content type.
      await this.moveIntoPlace(meta.path, this.metaPath(key));
      await this.moveIntoPlace(object.path, this.objectPath(key));
      return { bytes: object.bytes };
    } catch (error) {
      await Promise.all(staged.map((path) => rm(path, { force: true })));
      throw error;
    }
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    assertValidBlobKey(key);
    const handle = await open(this.objectPath(key), 'r').catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return undefined;
      }
      return { stream: handle.createReadStream(), bytes: stats.size, contentType: await this.contentTypeOf(key) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  signedUrl(key: string, ttlSeconds: number, publicBaseUrl: string): Promise<SignedBlobLink> {
    // Signing is synchronous here; `then` turns a refused key or lifetime into a rejection, as the port promises.
    return Promise.resolve().then(() => this.signer.sign(key, ttlSeconds, publicBaseUrl));
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    // The object first: whoever still finds it also finds its content type (the reverse of `put`).
    await removeFile(this.objectPath(key));
    await removeFile(this.metaPath(key));
  }

  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    const folder = join(this.root, 'objects', prefix);
    let deleted = 0;
    for (const path of await filesUnder(folder)) {
      if (!(await writtenBefore(path, before))) continue;
      await this.delete(relative(join(this.root, 'objects'), path).split(sep).join('/'));
      deleted += 1;
    }
    return deleted;
  }

  async discardAbandonedWrites(before: Date): Promise<number> {
    let discarded = 0;
    for (const path of await filesUnder(join(this.root, 'tmp'))) {
      if (!(await writtenBefore(path, before))) continue;
      await rm(path, { force: true });
      discarded += 1;
    }
    return discarded;
  }

  /** Writes a new file in the staging folder and flushes it to disk; removes it if anything fails. */
  private async stage(write: (path: string) => Promise<void>): Promise<{ path: string; bytes: number }> {
    const path = join(this.root, 'tmp', randomUUID());
    await mkdir(dirname(path), { recursive: true, mode: FOLDER_MODE });
    try {
      await write(path);
      const handle = await open(path, 'r+');
      try {
        await handle.sync();
        return { path, bytes: (await handle.stat()).size };
      } finally {
        await handle.close();
      }
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  private async moveIntoPlace(stagedPath: string, target: string): Promise<void> {
    await mkdir(dirname(target), { recursive: true, mode: FOLDER_MODE });
    await rename(stagedPath, target);
  }

  private async contentTypeOf(key: string): Promise<string> {
    try {
      const metadata = JSON.parse(await readFile(this.metaPath(key), 'utf8')) as Partial<BlobMetadata>;
      return typeof metadata.contentType === 'string' ? metadata.contentType : DEFAULT_CONTENT_TYPE;
    } catch (error) {
      if (isMissing(error)) return DEFAULT_CONTENT_TYPE;
      throw error;
    }
  }

  private objectPath(key: string): string {
    return join(this.root, 'objects', key);
  }

  private metaPath(key: string): string {
    return join(this.root, 'meta', `${key}.json`);
  }
}

/** Removes the file at `path` if there is one; a folder there holds other keys' objects and stays. */
async function removeFile(path: string): Promise<void> {
  if ((await statIfPresent(path))?.isFile()) await rm(path, { force: true });
}

async function statIfPresent(path: string): Promise<Stats | undefined> {
  return stat(path).catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw error;
  });
}

/** Whether the file at `path` is still there and was last written before `before`. */
async function writtenBefore(path: string, before: Date): Promise<boolean> {
  const stats = await statIfPresent(path);
  return stats !== undefined && stats.mtime.getTime() < before.getTime();
}

/** The paths of the files below `folder` (none when it does not exist). */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    if (isMissing(error)) return [];
    throw error;
  });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** ENOENT, or ENOTDIR when a key's parent is itself an object. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
