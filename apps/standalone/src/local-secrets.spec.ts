import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@guidepost/platform-config';
import { withLocalSecrets } from './local-secrets';

const CONFIGURED_TOKEN = 'a-configured-admin-token';
const CONFIGURED_SIGNING_SECRET = 'a-configured-signing-secret-of-32-characters';

describe('withLocalSecrets', () => {
  let dataDir: string;
  const secretsFile = (): string => join(dataDir, 'secrets.json');
  const stored = async (): Promise<Record<string, string>> => JSON.parse(await readFile(secretsFile(), 'utf8')) as Record<string, string>;
  const configured = (env: Record<string, string> = {}): ReturnType<typeof loadConfig> =>
    loadConfig({ GUIDEPOST_DATA_DIR: dataDir, ...env });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'guidepost-secrets-'));
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('generates the secrets that are not configured, keeps them (mode 0600) and uses the same at the next start', async () => {
    const first = await withLocalSecrets(configured());
    const again = await withLocalSecrets(configured());

    expect(first.adminTokenGenerated).toBe(true);
    expect(await stored()).toEqual({ adminToken: first.config.adminToken, blobSigningSecret: first.config.blobSigningSecret });
    expect((await stat(secretsFile())).mode & 0o777).toBe(0o600);
    expect(again.config.adminToken).toBe(first.config.adminToken);
    expect(again.config.blobSigningSecret).toBe(first.config.blobSigningSecret);
  });

  it('removes a generated admin token from the data folder once GUIDEPOST_ADMIN_TOKEN is set, and keeps the rest', async () => {
    const generated = await withLocalSecrets(configured());

    const secrets = await withLocalSecrets(configured({ GUIDEPOST_ADMIN_TOKEN: CONFIGURED_TOKEN }));

    expect(secrets).toMatchObject({ adminTokenGenerated: false, config: { adminToken: CONFIGURED_TOKEN } });
    expect(await stored()).toEqual({ blobSigningSecret: generated.config.blobSigningSecret });
  });

  it('keeps no secret that is configured, and writes no file when every one is', async () => {
    await writeFile(secretsFile(), JSON.stringify({ adminToken: 'generated-before', blobSigningSecret: 'generated-before' }));

    const secrets = await withLocalSecrets(
      configured({ GUIDEPOST_ADMIN_TOKEN: CONFIGURED_TOKEN, GUIDEPOST_BLOB_SIGNING_SECRET: CONFIGURED_SIGNING_SECRET }),
    );

    expect(secrets.config).toMatchObject({ adminToken: CONFIGURED_TOKEN, blobSigningSecret: CONFIGURED_SIGNING_SECRET });
    expect(await stored()).toEqual({});
    await rm(secretsFile());
    await withLocalSecrets(
      configured({ GUIDEPOST_ADMIN_TOKEN: CONFIGURED_TOKEN, GUIDEPOST_BLOB_SIGNING_SECRET: CONFIGURED_SIGNING_SECRET }),
    );
    await expect(stat(secretsFile())).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
