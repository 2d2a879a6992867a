import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** What creates files here may not let the group or others read, write or enter them. */
const PRIVATE_UMASK = 0o077;
/** The permission bits a mode keeps when made private: the owner's, and set-id and sticky bits. */
const OWNER_BITS = 0o7700;

interface Logger {
  warn(message: string): void;
}

/**
 * The data folder holds secrets (the admin token, the signing secret, PostgreSQL's passwords), every
 * account's data, staged uploads, export files and the PostgreSQL log: no other user of the machine
 * may read any of it. From here on, what this process and the servers it starts create is private
 * (umask 077: folders 0700, files 0600), and the folder is made 0700 if it is new.
 *
 * A folder that is not private (one an earlier version made, 0755 with files 0644) is walked, every
 * entry losing its group and other bits, and the folder itself is made private last, so that a start
 * interrupted meanwhile walks it again. A private folder is not walked: what is in it was created
 * under this umask.
 */
export async function makeDataFolderPrivate(dataDir: string, logger: Logger): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { mode } = await stat(dataDir);
  if ((mode & PRIVATE_UMASK) === 0) return;
  logger.warn(`making the data folder ${dataDir} and everything in it readable by this user only (it was readable by others)`);
  await makeEntriesPrivate(dataDir);
  await chmod(dataDir, mode & OWNER_BITS);
}

async function makeEntriesPrivate(folder: string): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    // A link's own mode is never used; what it points to in the folder is walked where it is.
    if (entry.isSymbolicLink()) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await makeEntriesPrivate(path);
    const { mode } = await lstat(path);
    if ((mode & PRIVATE_UMASK) !== 0) await chmod(path, mode & OWNER_BITS);
  }
}
