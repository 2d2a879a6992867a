import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { migrateServiceDatabase } from '@guidepost/platform-database';
import { type FreshDatabase, openFreshDatabase } from '@guidepost/platform-database/testing';
import { GATEWAY_DATABASE } from '../data-access/gateway-database';
import { GATEWAY_SCHEMA } from '../gateway-schema';
import type { ClaimTerms, KeyRef } from './idempotency-store.port';
import { PostgresIdempotencyStore } from './postgres-idempotency-store';

const TERMS: ClaimTerms = { ttlSeconds: 3600, leaseMs: 30_000 };
const LINE = { method: 'POST', path: '/v2/accounts/acme/import/events' };
const ANSWER = {
  status: 202,
  headers: { 'content-type': 'application/json; charset=utf-8', location: '/j/1' },
  body: Buffer.from('{"job_id":"j1"}'),
};
const DIGEST = createHash('sha256').update('body').digest();

let counter = 0;
function freshKey(): KeyRef {
  counter += 1;
  return { accountId: 'acme', key: `key-${counter}-${randomBytes(3).toString('hex')}` };
}

/**
 * The store of `Idempotency-Key` claims and answers on a real PostgreSQL, migrated as the gateway is:
 * two gateway replicas (two data sources) racing on one key, one wins; answers, releases, lapsed
 * leases, expiry and the sweep.
 */
describe('PostgresIdempotencyStore', () => {
  const replicas: DataSource[] = [];
  let database: FreshDatabase;
  let stores: PostgresIdempotencyStore[];

  beforeAll(async () => {
    database = await openFreshDatabase();
    await migrateServiceDatabase(database.url, GATEWAY_DATABASE);
    for (let replica = 0; replica < 2; replica += 1) {
      replicas.push(await new DataSource({ type: 'postgres', url: database.url, schema: GATEWAY_SCHEMA, poolSize: 8 }).initialize());
    }
    stores = replicas.map((dataSource) => new PostgresIdempotencyStore(dataSource, GATEWAY_SCHEMA));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.destroy()));
    await database?.drop();
  });

  it('lets exactly one of many racing claims across two replicas hold a key; the others see it running', async () => {
    const ref = freshKey();
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, index) => stores[index % 2].claim(ref, LINE, TERMS)));
    expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'running')).toHaveLength(39);
    expect(outcomes.find((outcome) => outcome.kind === 'running')).toEqual({ kind: 'running', request: LINE });
  });

  it('stores the answer of the claiming request, which every replica then replays', async () => {
    const ref = freshKey();
    const claim = await stores[0].claim(ref, LINE, TERMS);
    if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${claim.kind}`);
    expect(await stores[1].complete(ref, 'b9a3a0a4-8c2e-4e4f-9a55-0f5f1d2c7e10', DIGEST, ANSWER)).toBe(false);
    expect(await stores[0].complete(ref, claim.token, DIGEST, ANSWER)).toBe(true);
    for (const store of stores) {
      expect(await store.claim(ref, LINE, TERMS)).toEqual({ kind: 'answered', request: LINE, bodySha256: DIGEST, answer: ANSWER });
    }
  });

  it('keeps keys per account', async () => {
    const ref = freshKey();
    expect((await stores[0].claim(ref, LINE, TERMS)).kind).toBe('claimed');
    expect((await stores[1].claim({ ...ref, accountId: 'globex' }, LINE, TERMS)).kind).toBe('claimed');
  });

  it('frees a released key for the next claim, and only by the claim that holds it', async () => {
    const ref = freshKey();
    const claim = await stores[0].claim(ref, LINE, TERMS);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    await stores[1].release(ref, '00000000-0000-4000-8000-000000000000');
    expect((await stores[1].claim(ref, LINE, TERMS)).kind).toBe('running');
    await stores[0].release(ref, claim.token);
    expect((await stores[1].claim(ref, LINE, TERMS)).kind).toBe('claimed');
  });

  it('lets a claim whose lease lapsed (its gateway died) be taken over, unless it was renewed', async () => {
    const ref = freshKey();
    const shortLease = { ...TERMS, leaseMs: 300 };
    const dead = await stores[0].claim(ref, LINE, shortLease);
    if (dead.kind !== 'claimed') throw new Error('expected a claim');
    expect(await stores[0].renew(ref, dead.token, 300)).toBe(true);
    expect((await stores[1].claim(ref, LINE, shortLease)).kind).toBe('running');
    await delay(400);
    const takeover = await stores[1].claim(ref, { method: 'PATCH', path: '/v2/accounts/acme/users/u/profile' }, TERMS);
    expect(takeover.kind).toBe('claimed');
    // The dead claim can neither renew nor store its answer any more.
    expect(await stores[0].renew(ref, dead.token, 300)).toBe(false);
    expect(await stores[0].complete(ref, dead.token, DIGEST, ANSWER)).toBe(false);
  });

  it('forgets an answered key once it expires, and the sweep deletes expired rows but no running claim', async () => {
    const answered = freshKey();
    const running = freshKey();
    const short = { ttlSeconds: 0.3, leaseMs: 30_000 };
    const claim = await stores[0].claim(answered, LINE, short);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    await stores[0].complete(answered, claim.token, DIGEST, ANSWER);
    await stores[0].claim(running, LINE, short);
    await delay(400);

    const count = async (ref: KeyRef): Promise<number> => {
      const rows = await replicas[0].query<unknown[]>(
        `SELECT 1 FROM "gateway".idempotency_keys WHERE account_id = $1 AND idempotency_key = $2`,
        [ref.accountId, ref.key],
      );
      return rows.length;
    };
    let deleted = 0;
    for (let round = 0; round < 10; round += 1) deleted += await stores[1].deleteExpired(1_000);
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await count(answered)).toBe(0);
    // Past its expiry, but its request still runs (its lease holds): kept.
    expect(await count(running)).toBe(1);

    // An expired key is free again even before the sweep reaches it.
    const again = freshKey();
    const first = await stores[0].claim(again, LINE, short);
    if (first.kind !== 'claimed') throw new Error('expected a claim');
    await stores[0].complete(again, first.token, DIGEST, ANSWER);
    await delay(400);
    expect((await stores[1].claim(again, LINE, TERMS)).kind).toBe('claimed');
  });
});
