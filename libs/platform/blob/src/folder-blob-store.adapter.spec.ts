import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { BlobLinkSigner } from './blob-link-signer';
import { FolderBlobStore } from './folder-blob-store.adapter';

describe('FolderBlobStore', () => {
  let root: string;
  let store: FolderBlobStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'guidepost-blobs-'));
    store = new FolderBlobStore(root, new BlobLinkSigner('a-signing-secret-of-thirty-two-characters'));
  });

  afterEach(() => rm(root, { recursive: true, force: true }));

  it('gives back what was put, with its size and content type', async () => {
    const body = 'user_id,name\nu1,Ada\n';
    await expect(store.put('exports/job-1.csv', Readable.from([body]), 'text/csv')).resolves.toEqual({ bytes: body.length });

    const blob = await store.open('exports/job-1.csv');
    expect(blob).toMatchObject({ bytes: body.length, contentType: 'text/csv' });
    await expect(text(blob!.stream)).resolves.toBe(body);
  });

  it('keeps its folders and files readable by this user only, whatever the umask', async () => {
    const umask = process.umask(0);
    try {
      await store.put('exports/acme/job-1.csv', Readable.from(['id\n']), 'text/csv');
    } finally {
      process.umask(umask);
    }
    const modeOf = async (path: string): Promise<number> => (await stat(join(root, path))).mode & 0o777;
    expect(await modeOf('objects/exports/acme/job-1.csv')).toBe(0o600);
    expect(await modeOf('meta/exports/acme/job-1.csv.json')).toBe(0o600);
    for (const folder of ['tmp', 'objects', 'objects/exports', 'objects/exports/acme', 'meta/exports/acme'])
      expect(await modeOf(folder)).toBe(0o700);
  });

  it('streams a body of many chunks', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 64 }, () => chunk);
    await expect(store.put('big.bin', Readable.from(chunks), 'application/octet-stream')).resolves.toEqual({ bytes: 64 * chunk.length });
    const blob = await store.open('big.bin');
    expect((await text(blob!.stream)).length).toBe(64 * chunk.length);
  });

  it('replaces an object put again under the same key', async () => {
    await store.put('a.json', Readable.from(['{"v":1}']), 'application/json');
    await store.put('a.json', Readable.from(['{"v":2}\n']), 'application/x-ndjson');
    const blob = await store.open('a.json');
    expect(blob).toMatchObject({ bytes: 8, contentType: 'application/x-ndjson' });
    await expect(text(blob!.stream)).resolves.toBe('{"v":2}\n');
  });

  it('answers undefined for a key with no object', async () => {
    await expect(store.open('exports/missing.csv')).resolves.toBeUndefined();
    await store.put('exports', Readable.from(['file, not folder']), 'text/plain');
    await expect(store.open('exports/under-a-file.csv')).resolves.toBeUndefined();
  });

  it('leaves nothing behind and keeps the old object when the body fails mid-stream', async () => {
    await store.put('a.csv', Readable.from(['old']), 'text/csv');
    const failing = new Readable({
      read() {
        this.push('partial');
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put('a.csv', failing, 'text/csv')).rejects.toThrow('client went away');
    await expect(text((await store.open('a.csv'))!.stream)).resolves.toBe('old');
    await expect(readdir(join(root, 'tmp'))).resolves.toEqual([]);
  });

  it('refuses keys that could leave its folder', async () => {
    await expect(store.put('../outside.csv', Readable.from(['x']), 'text/csv')).rejects.toThrow('".."');
    await expect(store.open('/etc/passwd')).rejects.toThrow('invalid blob key');
  });

  it('deletes an object, and resolves when there is none', async () => {
    await store.put('imports/a/upload.csv', Readable.from(['id\n1\n']), 'text/csv');
    await store.put('imports/a/other.csv', Readable.from(['id\n2\n']), 'text/csv');
    await store.delete('imports/a/upload.csv');
    await expect(store.open('imports/a/upload.csv')).resolves.toBeUndefined();
    await expect(text((await store.open('imports/a/other.csv'))!.stream)).resolves.toBe('id\n2\n');
    await expect(store.delete('imports/a/upload.csv')).resolves.toBeUndefined();
    // A key that is only the folder of other keys names no object: nothing is removed.
    await store.delete('imports/a');
    await expect(text((await store.open('imports/a/other.csv'))!.stream)).resolves.toBe('id\n2\n');
    await expect(store.delete('../outside')).rejects.toThrow('".."');
  });

  it('signs links for its keys', async () => {
    const link = await store.signedUrl('exports/job-1.csv', 60, 'http://localhost');
    expect(link.url).toMatch(/^http:\/\/localhost\/blobs\/exports\/job-1\.csv\?expires=\d+&signature=/);
    await expect(store.signedUrl('exports/job-1.csv', 604_801, 'http://localhost')).rejects.toThrow(RangeError);
  });

  it('deletes the objects under a prefix written before a time, and no others', async () => {
    await store.put('exports/acme/old.csv', Readable.from(['old']), 'text/csv');
    await store.put('exports/acme/new.csv', Readable.from(['new']), 'text/csv');
    await store.put('imports/acme/old.csv', Readable.from(['staged']), 'text/csv');
    const lastWeek = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await utimes(join(root, 'objects', 'exports', 'acme', 'old.csv'), lastWeek, lastWeek);
    await utimes(join(root, 'objects', 'imports', 'acme', 'old.csv'), lastWeek, lastWeek);

    await expect(store.deleteOlderThan('exports/', new Date(Date.now() - 7 * 24 * 3600 * 1000))).resolves.toBe(1);
    await expect(store.open('exports/acme/old.csv')).resolves.toBeUndefined();
    await expect(text((await store.open('exports/acme/new.csv'))!.stream)).resolves.toBe('new');
    await expect(text((await store.open('imports/acme/old.csv'))!.stream)).resolves.toBe('staged');
    await expect(store.deleteOlderThan('nothing-here/', new Date())).resolves.toBe(0);
  });

  it('frees the staging files of writes abandoned before a time', async () => {
    await mkdir(join(root, 'tmp'), { recursive: true });
    await writeFile(join(root, 'tmp', 'abandoned'), 'half an upload');
    const yesterday = new Date(Date.now() - 25 * 3600 * 1000);
    await utimes(join(root, 'tmp', 'abandoned'), yesterday, yesterday);
    await writeFile(join(root, 'tmp', 'in-progress'), 'being written');

    await expect(store.discardAbandonedWrites(new Date(Date.now() - 24 * 3600 * 1000))).resolves.toBe(1);
    expect(await readdir(join(root, 'tmp'))).toEqual(['in-progress']);
  });
});
