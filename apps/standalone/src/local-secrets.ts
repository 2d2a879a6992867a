import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '@guidepost/platform-config';

interface StoredSecrets {
  adminToken: string;
  blobSigningSecret: string;
}

export interface LocalSecrets {
  readonly config: AppConfig;
  /** True when the admin token was generated here rather than configured. */
  readonly adminTokenGenerated: boolean;
}

/**
 * The standalone shape needs no variables: secrets that are not configured are generated once and
 * kept in the data folder (which exists: `makeDataFolderPrivate`; mode 0600), so the admin token and every signed download link stay valid
 * across restarts. Configured values always win.
 */
export async function withLocalSecrets(config: AppConfig): Promise<LocalSecrets> {
  const file = join(config.dataDir, 'secrets.json');
  const stored = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Partial<StoredSecrets>) : {};
  const secrets: StoredSecrets = {
    adminToken: stored.adminToken ?? randomBytes(24).toString('base64url'),
    blobSigningSecret: stored.blobSigningSecret ?? randomBytes(32).toString('base64url'),
  };
  if (stored.adminToken !== secrets.adminToken || stored.blobSigningSecret !== secrets.blobSigningSecret) {
    await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return {
    config: config.with({
      adminToken: config.adminToken ?? secrets.adminToken,
      blobSigningSecret: config.blobSigningSecret ?? secrets.blobSigningSecret,
    }),
    adminTokenGenerated: config.adminToken === undefined,
  };
}
