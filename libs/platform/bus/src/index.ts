export {
  MessageBus,
  type BatchSubscription,
  type OutgoingMessage,
  type SingleMessageSubscription,
  type Subscription,
} from './message-bus.port';
export { DeadLetterRecorder, type ConsumerDeadLetter } from './dead-letter-recorder.port';
export { InProcessBus } from './in-process-bus.adapter';
export { InProcessBusModule } from './bus.module';
export { InvalidMessageError, assertValidPayload } from './payload-validator';
export { KafkaBusModule, type KafkaBusModuleOptions } from './kafka/kafka-bus.module';
