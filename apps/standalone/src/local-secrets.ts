import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '@guidepost/platform-config';

/** What `secrets.json` holds: the secrets generated because they are not configured. */
type StoredSecrets = Partial<Record<'adminToken' | 'blobSigningSecret', string>>;

export interface LocalSecrets {
  readonly config: AppConfig;
  /** True when the admin token was generated here rather than configured. */
  readonly adminTokenGenerated: boolean;
}

/**
 * The standalone shape needs no variables: secrets that are not configured are generated once and
 * kept in the data folder (`secrets.json`, mode 0600), so the admin token and every signed download
 * link stay valid across restarts. Configured values always win, and a secret generated before its
 * variable was set is removed from the file: a token the operator replaced must not open the admin API
 * again on the day the variable is unset.
 */
export async function withLocalSecrets(config: AppConfig): Promise<LocalSecrets> {
  const file = join(config.dataDir, 'secrets.json');
  const stored = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as StoredSecrets) : {};
  const kept: StoredSecrets = {
    adminToken: config.adminToken === undefined ? (stored.adminToken ?? randomBytes(24).toString('base64url')) : undefined,
    blobSigningSecret:
      config.blobSigningSecret === undefined ? (stored.blobSigningSecret ?? randomBytes(32).toString('base64url')) : undefined,
  };
  if (stored.adminToken !== kept.adminToken || stored.blobSigningSecret !== kept.blobSigningSecret) {
    await writeFile(file, JSON.stringify(kept, null, 2), { mode: 0o600 });
  }
  return {
    config: config.with({
      adminToken: config.adminToken ?? kept.adminToken,
      blobSigningSecret: config.blobSigningSecret ?? kept.blobSigningSecret,
    }),
    adminTokenGenerated: config.adminToken === undefined,
  };
}
