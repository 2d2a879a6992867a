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
  /**
   * The event store's process where an operator runs it (the distributed shape's ClickHouse); absent
   * where Guidepost starts and places its own (the standalone host's engine process).
   */
  readonly eventStoreProcess?: NamedProcess;
  /**
   * A connection to the deployment's event store, for baselines read straight from it (closed by the
   * caller). The standalone server is stopped first: chdb binds its data folder to one process.
   */
  openEventStore(): Promise<EventStoreConnection>;
  /** The Kafka broker the deployment produces to, where it has one (the distributed shape). */
  readonly kafka?: KafkaPlace;
  /** Whether `openEventStore()` stops the deployment (the standalone server: chdb binds its data folder to one process). */
  readonly exclusiveEventStore: boolean;
  /** Idempotent. */
  stop(): Promise<void>;
}

/** Where a benchmark's own topic goes on the deployment's broker: discarded with the deployment when it stops. */
export interface KafkaPlace {
  readonly brokers: readonly string[];
  /** Prefix of the deployment's topics (`<namespace>.`). */
  readonly topicPrefix: string;
  /** Partitions of the deployment's topics. */
  readonly partitions: number;
  /** The broker's process, when the benchmark found it (one of `processes`). */
  readonly brokerProcess?: NamedProcess;
}

/** A client of an event store, and how to let go of it (and of the engine opened for it, if any). */
export interface EventStoreConnection {
  readonly client: ClickHouseClient;
  close(): Promise<void>;
}

/** A stage's name with the shape it measured (`1 track (distributed)`). */
export function stageOfShape(stage: string, shape: Shape): string {
  return `${stage} (${shape})`;
}
