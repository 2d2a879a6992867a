import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrateServiceDatabase } from '@guidepost/platform-database';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { hashSecret, newApiKey, newApiSecret } from '../domain/credentials';
import { GATEWAY_SCHEMA } from '../gateway-schema';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyEntity } from './api-key.entity';
import { AccountEntity } from './account.entity';
import { GATEWAY_DATABASE } from './gateway-database';
import { RevokedKeyWatcher } from './revoked-key-watcher';
import { SharedRateLimiter } from './shared-rate-limiter';

/** A database of this run's own on the real PostgreSQL, with the gateway's schema migrated. */
async function gatewayDatabase(): Promise<string> {
  const serverUrl = process.env['GUIDEPOST_DATABASE_URL']!;
  const name = `guidepost_it_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrateServiceDatabase(url.toString(), GATEWAY_DATABASE);
  return url.toString();
}

/** One gateway replica's connection to the gateway schema. */
function replicaDataSource(url: string): Promise<DataSource> {
  return new DataSource({
    type: 'postgres',
    url,
    schema: GATEWAY_SCHEMA,
    entities: [AccountEntity, ApiKeyEntity],
    poolSize: 4,
  }).initialize();
}

describe('limits shared by every gateway replica, on a real PostgreSQL', () => {
  let url: string;
  const replicas: DataSource[] = [];

  beforeAll(async () => {
    url = await gatewayDatabase();
    replicas.push(await replicaDataSource(url), await replicaDataSource(url));
  });

  afterAll(() => Promise.all(replicas.map((replica) => replica.destroy())));

  it('admits exactly the budget across two replicas in one window, and again in the next', async () => {
    const limit = 200;
    let now = 1_800_000_000_250;
    // 300 requests at once per replica each ask for a lease, queued for its 4 connections and one row
    // lock: on a loaded machine a lease can take over the second after which a replica limits alone.
    // This case is about sharing the budget; limiting alone has a case of its own below.
    const leaseWaitMs = 60_000;
    const limiters = replicas.map((replica) => new SharedRateLimiter(replica, limit, () => now, leaseWaitMs));
    const account = `acct-${randomUUID()}`;

    const burst = async (): Promise<number> => {
      const decisions = await Promise.all(Array.from({ length: 600 }, (_, index) => limiters[index % 2].take(account)));
      return decisions.filter((decision) => decision.allowed).length;
    };
    expect(await burst()).toBe(limit);
    const refused = await limiters[0].take(account);
    expect(refused).toMatchObject({ allowed: false, limit, remaining: 0, resetSeconds: 1 });

    now += 1_000;
    expect(await burst()).toBe(limit);
  });

  it('leases no more than its requests take, leaving the rest of the budget to the other replicas', async () => {
    const limit = 200;
    const now = 1_800_000_050_250;
    const limiters = replicas.map((replica) => new SharedRateLimiter(replica, limit, () => now, 60_000));
    const account = `acct-${randomUUID()}`;

    // Twenty requests at once find the first replica without a lease: they share its renewals rather
    // than each take a lease of their own and leave most of it unused.
    const first = await Promise.all(Array.from({ length: 20 }, () => limiters[0].take(account)));
    expect(first.every((decision) => decision.allowed)).toBe(true);
    const second = await Promise.all(Array.from({ length: 600 }, () => limiters[1].take(account)));
    expect(second.filter((decision) => decision.allowed)).toHaveLength(limit - 20);
  });

  it('keeps limiting on its own budget when the database cannot be reached', async () => {
    const lost = await replicaDataSource(url);
    await lost.destroy();
    const limiter = new SharedRateLimiter(lost, 5, () => 1_800_000_100_000);
    const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.take('acct-offline')));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
  });

  it('stops a key revoked through one replica on another within one poll', async () => {
    const [first, second] = replicas;
    const accountId = `acct-${randomUUID()}`;
    await first.getRepository(AccountEntity).insert({ id: accountId, name: 'Acme', createdAt: new Date() });
    const secret = newApiSecret();
    const keys = new ApiKeyRepository(first.getRepository(ApiKeyEntity));
    const { key } = await keys.insert(newApiKey(), accountId, hashSecret(secret));
    // The second replica has the key cached, as it would after serving a request with it.
    const secondAuthenticator = new ApiKeyAuthenticator(new ApiKeyRepository(second.getRepository(ApiKeyEntity)));
    await expect(secondAuthenticator.authenticate(key, secret)).resolves.toMatchObject({ accountId });
    const watcher = new RevokedKeyWatcher(second, secondAuthenticator);
    await watcher.lookOnce();

    await keys.revoke(accountId, key);
    await expect(secondAuthenticator.authenticate(key, secret)).resolves.toMatchObject({ accountId });
    await watcher.lookOnce();
    await expect(secondAuthenticator.authenticate(key, secret)).resolves.toBeUndefined();
  });
});
