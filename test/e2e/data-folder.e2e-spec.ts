import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { api, createAccount, startServer, type RunningServer, type TestAccount } from './support';
import { completedJob, expectAccepted, useServer } from './support-segments';
import { historyOfAtLeast, ndjsonBody, ndjsonText, startImport } from './support-people';

/**
 * The standalone server's data folder (secrets, PostgreSQL's cluster, passwords and log, the event
 * store, staged uploads, export files) is private: no folder or file in it lets the machine's other
 * users in, neither what the server creates while it serves nor what an earlier version left readable.
 * This file runs its own server, whose whole folder it walks.
 */
describe('the data folder', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let account: TestAccount;

  beforeAll(async () => {
    running = await startServer();
    pointBack = useServer(running);
    account = await createAccount();
  }, 180_000);

  afterAll(async () => {
    pointBack?.();
    await running?.stop();
  }, 60_000);

  it('holds nothing the group or others may read once the server has served an import and an export', async () => {
    const exportFile = await importAndExport(account, 'first');

    expect((await lstat(join(running!.dataDir, exportFile))).mode & 0o777).toBe(0o600);
    expect(await entriesNotPrivate(running!.dataDir)).toEqual([]);
  }, 120_000);

  it('is made private again at start when an earlier version left it readable', async () => {
    await running!.terminate();
    await loosenAsEarlierVersionsDid(running!.dataDir);
    expect(await entriesNotPrivate(running!.dataDir)).not.toEqual([]);

    await running!.start();
    expect(await entriesNotPrivate(running!.dataDir)).toEqual([]);
    await importAndExport(account, 'second');
    expect(await entriesNotPrivate(running!.dataDir)).toEqual([]);
  }, 240_000);
});

/** Imports one event, waits until history has it, exports it as CSV; resolves to the export file's path in the data folder. */
async function importAndExport(account: TestAccount, userId: string): Promise<string> {
  const event = { user_id: userId, name: 'signup', timestamp: '2024-03-01T10:00:00Z' };
  await completedJob(account, await startImport(account, 'events', ndjsonBody(ndjsonText([event]))));
  await historyOfAtLeast(account, userId, 1);
  const exported = await expectAccepted(
    account,
    await api(account, 'POST', '/export/events', { json: { format: 'csv', conditions: [], start_time: '2024-03-01T00:00:00Z' } }),
  );
  const { job } = await completedJob(account, exported);
  return join('blobs', 'objects', 'exports', account.id, `${job.id}.csv`);
}

/**
 * `path` and every folder and file under it (links aside: their own mode is never used) that lets the
 * group or others in, with its mode. What the server deletes meanwhile (merged event store parts) is skipped.
 */
async function entriesNotPrivate(path: string): Promise<string[]> {
  const info = await lstat(path).catch(unlessGone(undefined));
  if (info === undefined || info.isSymbolicLink()) return [];
  const found = (info.mode & 0o077) === 0 ? [] : [`${path} ${(info.mode & 0o7777).toString(8)}`];
  if (!info.isDirectory()) return found;
  for (const entry of await readdir(path).catch(unlessGone([]))) found.push(...(await entriesNotPrivate(join(path, entry))));
  return found;
}

/**
 * The modes versions before this one left (umask 022): folders 0755, files 0644, but the PostgreSQL
 * cluster, which PostgreSQL itself always kept 0700.
 */
async function loosenAsEarlierVersionsDid(folder: string): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isSymbolicLink() || entry.name === 'postgres') continue;
    if (entry.isDirectory()) await loosenAsEarlierVersionsDid(path);
    else await chmod(path, 0o644);
  }
  await chmod(folder, 0o755);
}

/** A catch handler that answers `fallback` for what was deleted meanwhile, and rethrows anything else. */
function unlessGone<T>(fallback: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT') return fallback;
    throw error;
  };
}
