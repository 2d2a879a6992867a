import { type DynamicModule, Global, Injectable, Module } from '@nestjs/common';
import { ALL_TOPICS, type Topic } from '@guidepost/contracts-events';
import { ReadinessProbe } from '@guidepost/platform-observability';
import { MessageBus } from '../message-bus.port';
import { KAFKA_BUS_OPTIONS, KafkaBus, type KafkaBusOptions } from './kafka-bus.adapter';

/** `GET /health/ready` answers 503 until the producer is connected and every consumer has joined its group. */
@Injectable()
export class KafkaBusReadiness extends ReadinessProbe {
  readonly name = 'bus';

  constructor(private readonly bus: KafkaBus) {
    super();
  }

  check(): Promise<void> {
    const reasons = this.bus.notReadyReasons();
    return reasons.length === 0 ? Promise.resolve() : Promise.reject(new Error(reasons.join('; ')));
  }
}

export interface KafkaBusModuleOptions {
  /** The service's name, as the brokers see this process; `guidepost` when not given. */
  readonly clientId?: string;
  /** Every contract topic unless given (tests use topics of their own). */
  readonly topics?: readonly Topic[];
  readonly handlerRetry?: KafkaBusOptions['handlerRetry'];
  readonly socketFactory?: KafkaBusOptions['socketFactory'];
  readonly requestRetry?: KafkaBusOptions['requestRetry'];
}

/**
 * Provides the `MessageBus` port on Kafka (the distributed shape), in place of `InProcessBusModule`
 * when `GUIDEPOST_KAFKA_BROKERS` is set. Needs `AppConfig` and `MetricsRegistry` (both global).
 */
@Global()
@Module({})
export class KafkaBusModule {
  static forRoot(options: KafkaBusModuleOptions = {}): DynamicModule {
    const busOptions: KafkaBusOptions = {
      clientId: options.clientId ?? 'guidepost',
      topics: options.topics ?? ALL_TOPICS,
      handlerRetry: options.handlerRetry,
      socketFactory: options.socketFactory,
      requestRetry: options.requestRetry,
    };
    return {
      module: KafkaBusModule,
      global: true,
      providers: [
        { provide: KAFKA_BUS_OPTIONS, useValue: busOptions },
        KafkaBus,
        { provide: MessageBus, useExisting: KafkaBus },
        KafkaBusReadiness,
      ],
      exports: [MessageBus],
    };
  }
}
