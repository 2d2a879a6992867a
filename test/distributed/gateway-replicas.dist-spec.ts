import { admin, createAccount, createApiKey, type TestAccount } from '../e2e/support';
import { useSpecSuite } from './support';

const RATE_LIMIT = 50;
const SECOND_MS = 1_000;

/**
 * Several gateway replicas behave as one gateway: an account's requests are limited to its budget
 * across all of them (within a tenth), and a key revoked through one stops working on every other
 * within a second, although each replica caches the keys it verified.
 */
describe('two gateway replicas', () => {
  const spec = useSpecSuite({ gatewayReplicas: 2, rateLimitPerSecond: RATE_LIMIT });

  it('hold an account to its budget together, not each to the whole budget', async () => {
    const [first, second] = spec.suite.gatewayUrls;
    const { account } = spec;
    // Eight clients, four on each replica, as fast as they are answered, for five seconds.
    const admittedAt: number[] = [];
    const until = Date.now() + 5 * SECOND_MS;
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        while (Date.now() < until) {
          const response = await fetch(`${client % 2 === 0 ? first : second}/v2/accounts/${account.id}/tags`, { headers: basic(account) });
          await response.arrayBuffer();
          if (response.status === 200) admittedAt.push(Date.now());
          else expect(response.status).toBe(429);
        }
      }),
    );

    // Whole seconds only: the first and the last were cut by the start and the end of the run. A second
    // may count a few of its neighbour's (answers are timed here, windows at the gateways), so the
    // promise is held over the run.
    const perSecond = new Map<number, number>();
    for (const at of admittedAt) perSecond.set(Math.floor(at / SECOND_MS), (perSecond.get(Math.floor(at / SECOND_MS)) ?? 0) + 1);
    const seconds = [...perSecond.keys()].sort((a, b) => a - b).slice(1, -1);
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    const admitted = seconds.map((second) => perSecond.get(second) ?? 0);
    const total = admitted.reduce((sum, count) => sum + count, 0);
    // Within a tenth of the budget over the run; one replica alone would admit up to twice as much.
    expect(total / seconds.length).toBeGreaterThanOrEqual(RATE_LIMIT * 0.9);
    expect(total / seconds.length).toBeLessThanOrEqual(RATE_LIMIT * 1.1);
  }, 60_000);

  it('stop a key revoked through one replica on the other within a second', async () => {
    const [, second] = spec.suite.gatewayUrls;
    // An account of its own: the budget of the spec's account is spent by the test above.
    const account = await createAccount();
    const extra = { id: account.id, ...(await createApiKey(account.id)) };
    // The second replica verifies the key, and so caches it.
    expect((await fetch(`${second}/v2/accounts/${account.id}/tags`, { headers: basic(extra) })).status).toBe(200);

    // The admin client talks to the first replica.
    const revoked = await admin('DELETE', `/admin/v1/accounts/${account.id}/api_keys/${encodeURIComponent(extra.key)}`);
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 5 * SECOND_MS) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await fetch(`${second}/v2/accounts/${account.id}/tags`, { headers: basic(extra) })).status;
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(SECOND_MS);
  }, 60_000);
});

function basic(account: Pick<TestAccount, 'key' | 'secret'>): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${account.key}:${account.secret}`).toString('base64')}` };
}
