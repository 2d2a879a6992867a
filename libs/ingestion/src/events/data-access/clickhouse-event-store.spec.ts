import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@clickhouse/client';
import { classifyFailure } from '@guidepost/platform-failures';
import { ClickHouseEventStore } from './clickhouse-event-store.adapter';
import { eventStoreCases } from './clickhouse-event-store.spec-cases';
import { chdbClickHouse } from './clickhouse-targets.spec-cases';

describe('ClickHouseEventStore, the chdb engine behind its HTTP front', () => {
  eventStoreCases(() => chdbClickHouse('guidepost-event-store-'));
});

describe('ClickHouseEventStore with a store that says nothing (frozen, or cut off)', () => {
  it('fails a history read as unavailable once its wait limit has passed, instead of holding the request', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const client = createClient({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    try {
      const store = new ClickHouseEventStore(client, { historyWaitLimitMs: 300 });
      const started = Date.now();
      const failure: unknown = await store
        .history({ accountId: 'acme', userId: 'u1', limit: 5, timeZoneMinutes: 0 })
        .catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(failure).toBeInstanceOf(Error);
      expect({ message: (failure as Error).message, class: classifyFailure(failure) }).toEqual({
        message: 'the event store did not answer within 300 ms',
        class: 'transient',
      });
    } finally {
      await client.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
