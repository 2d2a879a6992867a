import { Injectable } from '@nestjs/common';
import { ClickHouseClient } from '@clickhouse/client';
import { ReadinessProbe } from '@guidepost/platform-observability';

/** Readiness of the event store: ClickHouse answers a ping (`SELECT 1` in process). */
@Injectable()
export class EventStoreProbe extends ReadinessProbe {
  readonly name = 'event-store';

  constructor(private readonly client: ClickHouseClient) {
    super();
  }

  async check(): Promise<void> {
    const result = await this.client.ping();
    if (!result.success) throw result.error;
  }
}
