import { Readable } from 'node:stream';
import { BlobRetention } from './blob-retention';
import { MemoryBlobStore } from './testing';

const DAY_MS = 24 * 3600 * 1000;

describe('BlobRetention', () => {
  it('deletes export files whose one-week link has expired, keeps newer ones and everything else', async () => {
    const now = new Date('2026-03-20T12:00:00Z');
    let clock = new Date(now.getTime() - 8 * DAY_MS);
    const blobs = new MemoryBlobStore(() => clock);
    await blobs.put('exports/acme/expired.csv', Readable.from([Buffer.from('a')]), 'text/csv');
    await blobs.put('imports/acme/staged.csv', Readable.from([Buffer.from('b')]), 'text/csv');
    // Written six days and 23 hours before the sweep: its link is valid for another hour.
    clock = new Date(now.getTime() - 7 * DAY_MS + 3600 * 1000);
    await blobs.put('exports/acme/still-linked.csv', Readable.from([Buffer.from('c')]), 'text/csv');

    await new BlobRetention(blobs, 3_600_000, () => now).sweepOnce();

    expect([...blobs.files.keys()].sort()).toEqual(['exports/acme/still-linked.csv', 'imports/acme/staged.csv']);
  });

  it('keeps sweeping after a sweep failed', async () => {
    const blobs = new MemoryBlobStore();
    let calls = 0;
    blobs.deleteOlderThan = () => (++calls === 1 ? Promise.reject(new Error('store unavailable')) : Promise.resolve(0));
    const retention = new BlobRetention(blobs, 3_600_000);
    await expect(retention.sweepOnce()).resolves.toBeUndefined();
    await expect(retention.sweepOnce()).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
