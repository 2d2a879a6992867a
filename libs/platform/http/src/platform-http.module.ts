import { Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { InternalCallerHooks } from './auth/internal-caller.hooks';
import { InboundBodyInterceptor } from './body/inbound-body.interceptor';
import { ProblemDetailsFilter } from './errors/problem-details.filter';
import { CsvResponseInterceptor } from './rendering/csv-response.interceptor';

/**
 * The HTTP conventions of every host: Problem Details for every error, `@AcceptsBody` enforcement
 * with `@InboundBody()` normalisation, and CSV rendering under `Accept: text/csv`. Needs `AppConfig`
 * (global, from `PlatformConfigModule.forRoot`). Pair it with `configureHttpServer` on the app. Service
 * hosts of the distributed shape also install `InternalCallerHooks`.
 */
@Module({
  providers: [
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
    { provide: APP_INTERCEPTOR, useClass: InboundBodyInterceptor },
    { provide: APP_INTERCEPTOR, useClass: CsvResponseInterceptor },
    InternalCallerHooks,
  ],
  exports: [InternalCallerHooks],
})
export class PlatformHttpModule {}
