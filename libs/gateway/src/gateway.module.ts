import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { AccountAdministration } from './application/account-administration.service';
import { AccountStore } from './application/account-store.port';
import { ApiKeyAuthenticator } from './application/api-key-authenticator';
import { ApiKeyLookup } from './application/api-key-lookup.port';
import { ApiKeyStore } from './application/api-key-store.port';
import { AuthenticationThrottle } from './application/authentication-throttle';
import { countAttempts } from './api/authentication-metrics';
import { PublicApiGate } from './application/public-api-gate';
import { AdminAccountsController } from './api/admin-accounts.controller';
import { GatewayHttpHooks } from './api/gateway-http.hooks';
import { AccountRepository } from './data-access/account.repository';
import { ApiKeyRepository } from './data-access/api-key.repository';
import { GATEWAY_DATABASE } from './data-access/gateway-database';
import { RevokedKeyWatcher } from './data-access/revoked-key-watcher';
import { SharedRateLimiter } from './data-access/shared-rate-limiter';
import { GATEWAY_SCHEMA } from './gateway-schema';
import { IdempotencyStore } from './idempotency/idempotency-store.port';
import { IdempotencySweep } from './idempotency/idempotency-sweep';
import { IdempotentRequests } from './idempotency/idempotent-requests';
import { PostgresIdempotencyStore } from './idempotency/postgres-idempotency-store';
import { GatewayProxy } from './routing/gateway-proxy';

/**
 * The gateway: accounts and API keys (admin API), and the checks every public request passes first.
 * A host imports this module and calls `GatewayHttpHooks.install` on its Fastify instance before
 * `app.init()`; the gateway host of the distributed shape then calls `GatewayProxy.install` to route
 * each service's routes to it. Needs the global `AppConfig` and `MessageBus` (for the outbox relay of
 * its schema). The request budget and revocations hold across replicas: both go through the gateway's
 * schema (`SharedRateLimiter`, `RevokedKeyWatcher`), in the standalone shape as well, so one code path
 * serves both; so do the claims and answers of requests sent with an `Idempotency-Key`
 * (`IdempotentRequests`, `PostgresIdempotencyStore`, swept by `IdempotencySweep`). Failed
 * authentication is throttled in each replica's memory (`AuthenticationThrottle`), so that neither a
 * success nor a refusal waits on the database.
 */
@Module({
  imports: [ServiceDatabaseModule.forService(GATEWAY_DATABASE)],
  controllers: [AdminAccountsController],
  providers: [
    { provide: AccountStore, useClass: AccountRepository },
    // One repository behind both ports of `gateway.api_keys`: authentication reads it, administration writes it.
    ApiKeyRepository,
    { provide: ApiKeyLookup, useExisting: ApiKeyRepository },
    { provide: ApiKeyStore, useExisting: ApiKeyRepository },
    { provide: ApiKeyAuthenticator, inject: [ApiKeyLookup], useFactory: (lookup: ApiKeyLookup) => new ApiKeyAuthenticator(lookup) },
    {
      provide: AuthenticationThrottle,
      inject: [MetricsRegistry],
      useFactory: (metrics: MetricsRegistry) => new AuthenticationThrottle(countAttempts(metrics)),
    },
    {
      provide: PublicApiGate,
      inject: [ApiKeyAuthenticator, AppConfig, getDataSourceToken(GATEWAY_SCHEMA), AuthenticationThrottle],
      useFactory: (authenticator: ApiKeyAuthenticator, config: AppConfig, dataSource: DataSource, throttle: AuthenticationThrottle) =>
        new PublicApiGate(authenticator, new SharedRateLimiter(dataSource, config.rateLimitPerSecond), throttle),
    },
    {
      provide: RevokedKeyWatcher,
      inject: [getDataSourceToken(GATEWAY_SCHEMA), ApiKeyAuthenticator],
      useFactory: (dataSource: DataSource, authenticator: ApiKeyAuthenticator) => new RevokedKeyWatcher(dataSource, authenticator),
    },
    AccountAdministration,
    // Idempotency-Key: claims and answers in the gateway's schema too, shared by every replica.
    {
      provide: IdempotencyStore,
      inject: [getDataSourceToken(GATEWAY_SCHEMA)],
      useFactory: (dataSource: DataSource) => new PostgresIdempotencyStore(dataSource, GATEWAY_SCHEMA),
    },
    { provide: IdempotencySweep, inject: [IdempotencyStore], useFactory: (store: IdempotencyStore) => new IdempotencySweep(store) },
    IdempotentRequests,
    GatewayHttpHooks,
    GatewayProxy,
  ],
  exports: [GatewayHttpHooks, GatewayProxy],
})
export class GatewayModule {}
