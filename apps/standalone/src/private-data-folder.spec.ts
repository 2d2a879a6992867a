import { chmod, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDataFolderPrivate } from './private-data-folder';

const QUIET = { warn: () => undefined };

async function modeOf(path: string): Promise<number> {
  return (await lstat(path)).mode & 0o7777;
}

describe('makeDataFolderPrivate', () => {
  let folder: string;
  let umask: number;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'guidepost-private-'));
    umask = process.umask(0o022);
  });

  afterEach(async () => {
    process.umask(umask);
    await rm(folder, { recursive: true, force: true });
  });

  it('makes a new folder 0700, and what is created afterwards private', async () => {
    const dataDir = join(folder, 'new', 'data');

    await makeDataFolderPrivate(dataDir, QUIET);
    await mkdir(join(dataDir, 'blobs', 'exports'), { recursive: true });
    await writeFile(join(dataDir, 'blobs', 'exports', 'a.csv'), 'id\n');

    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(join(dataDir, 'blobs', 'exports'))).toBe(0o700);
    expect(await modeOf(join(dataDir, 'blobs', 'exports', 'a.csv'))).toBe(0o600);
  });

  it('takes the group and others out of a folder an earlier version made, keeping the owner bits, links untouched', async () => {
    const dataDir = join(folder, 'data');
    await mkdir(join(dataDir, 'blobs', 'objects'), { recursive: true, mode: 0o755 });
    await writeFile(join(dataDir, 'postgres.log'), 'log', { mode: 0o644 });
    await writeFile(join(dataDir, 'blobs', 'objects', 'a.csv'), 'id\n', { mode: 0o664 });
    await writeFile(join(dataDir, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    await symlink(join(dataDir, 'blobs'), join(dataDir, 'link'));
    await chmod(dataDir, 0o755);

    await makeDataFolderPrivate(dataDir, QUIET);

    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(join(dataDir, 'blobs'))).toBe(0o700);
    expect(await modeOf(join(dataDir, 'blobs', 'objects'))).toBe(0o700);
    expect(await modeOf(join(dataDir, 'postgres.log'))).toBe(0o600);
    expect(await modeOf(join(dataDir, 'blobs', 'objects', 'a.csv'))).toBe(0o600);
    expect(await modeOf(join(dataDir, 'tool'))).toBe(0o700);
    expect((await lstat(join(dataDir, 'link'))).isSymbolicLink()).toBe(true);
  });
});
