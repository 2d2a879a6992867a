import type { ClickHouseClient } from '@clickhouse/client';
import type { NamedProcess } from './process-tree';

/** The two shapes of Guidepost the benchmark measures (docs/architecture.md). */
export const SHAPES = ['standalone', 'distributed'] as const;
export type Shape = (typeof SHAPES)[number];

/** A running Guidepost of either shape, as the stages see it. */
export interface Deployment {
  readonly shape: Shape;
  /** Where clients go: the standalone server, or the distributed shape's gateway. */
  readonly baseUrl: string;
  readonly adminToken: string;
  /**
   * Every process whose CPU and memory the stages report, named: Guidepost's own processes first,
   * then the servers it uses (the distributed shape's Kafka, PostgreSQL, ClickHouse and MinIO).
   */
  readonly processes: readonly NamedProcess[];
  /** The event store's own process (the distributed shape's ClickHouse); absent where the store runs inside Guidepost (standalone). */
  readonly eventStoreProcess?: NamedProcess;
  /**
   * A client of the deployment's event store, for baselines read straight from it (closed by the
   * caller). The standalone server is stopped first: chdb binds its data folder to one process.
   */
  openEventStore(): Promise<ClickHouseClient>;
  /** Whether `openEventStore()` stops the deployment (the standalone server: chdb binds its data folder to one process). */
  readonly exclusiveEventStore: boolean;
  /** Idempotent. */
  stop(): Promise<void>;
}

/** A stage's name with the shape it measured (`1 track (distributed)`). */
export function stageOfShape(stage: string, shape: Shape): string {
  return `${stage} (${shape})`;
}
