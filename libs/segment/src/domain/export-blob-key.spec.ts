import { exportBlobKey } from './export-blob-key';

describe('exportBlobKey', () => {
  it('files an export under its account and job', () => {
    expect(exportBlobKey('acme', 'job_1-a', 'ndjson')).toBe('exports/acme/job_1-a.ndjson');
  });

  it.each(['../etc', 'a/b', 'with space', 'acme.eu', 'ünïcode', ''])('replaces the id %j by a hash that stays in its folder', (id) => {
    const key = exportBlobKey(id, 'job', 'csv');
    expect(key).toMatch(/^exports\/[0-9a-f]{64}\/job\.csv$/);
    expect(exportBlobKey(id, 'job', 'csv')).toBe(key);
  });

  it('keeps different accounts apart', () => {
    expect(exportBlobKey('a.b', 'job', 'csv')).not.toBe(exportBlobKey('a/b', 'job', 'csv'));
  });
});
