import { Global, Module } from '@nestjs/common';
import { InProcessBus } from './in-process-bus.adapter';
import { MessageBus } from './message-bus.port';

/** Provides the `MessageBus` port. The standalone shape binds the in-process adapter. */
@Global()
@Module({
  providers: [{ provide: MessageBus, useClass: InProcessBus }],
  exports: [MessageBus],
})
export class InProcessBusModule {}
