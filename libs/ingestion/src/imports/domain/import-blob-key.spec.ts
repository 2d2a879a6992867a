import { importBlobKey } from './import-blob-key';

describe('importBlobKey', () => {
  it('stages uploads by account under their upload id and format', () => {
    expect(importBlobKey('acme_1', 'a1b2', 'csv')).toBe('imports/acme_1/a1b2.csv');
  });

  it('never lets an account id leave its folder', () => {
    expect(importBlobKey('../etc', 'a1b2', 'ndjson')).toMatch(/^imports\/[0-9a-f]{64}\/a1b2\.ndjson$/);
  });
});
