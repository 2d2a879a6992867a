import { Module } from '@nestjs/common';
import { AppConfig } from '@guidepost/platform-config';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { AccountAdministration } from './application/account-administration.service';
import { ApiKeyAuthenticator } from './application/api-key-authenticator';
import { ApiKeyLookup } from './application/api-key-lookup.port';
import { PublicApiGate } from './application/public-api-gate';
import { AdminAccountsController } from './api/admin-accounts.controller';
import { GatewayHttpHooks } from './api/gateway-http.hooks';
import { AccountEntity } from './data-access/account.entity';
import { AccountRepository } from './data-access/account.repository';
import { ApiKeyEntity } from './data-access/api-key.entity';
import { ApiKeyRepository } from './data-access/api-key.repository';
import { CreateGatewayTables1732200000001 } from './data-access/migrations/0001-create-gateway-tables';
import { FixedWindowRateLimiter } from './domain/fixed-window-rate-limiter';
import { GATEWAY_SCHEMA } from './gateway-schema';

/**
 * The gateway: accounts and API keys (admin API), and the checks every public request passes first.
 * A host imports this module and calls `GatewayHttpHooks.install` on its Fastify instance before
 * `app.init()`. Needs the global `AppConfig` and `MessageBus` (for the outbox relay of its schema).
 */
@Module({
  imports: [
    ServiceDatabaseModule.forService({
      schema: GATEWAY_SCHEMA,
      entities: [AccountEntity, ApiKeyEntity],
      migrations: [CreateGatewayTables1732200000001],
    }),
  ],
  controllers: [AdminAccountsController],
  providers: [
    AccountRepository,
    ApiKeyRepository,
    { provide: ApiKeyLookup, useExisting: ApiKeyRepository },
    { provide: ApiKeyAuthenticator, inject: [ApiKeyLookup], useFactory: (lookup: ApiKeyLookup) => new ApiKeyAuthenticator(lookup) },
    {
      provide: PublicApiGate,
      inject: [ApiKeyAuthenticator, AppConfig],
      useFactory: (authenticator: ApiKeyAuthenticator, config: AppConfig) =>
        new PublicApiGate(authenticator, new FixedWindowRateLimiter(config.rateLimitPerSecond)),
    },
    AccountAdministration,
    GatewayHttpHooks,
  ],
  exports: [GatewayHttpHooks],
})
export class GatewayModule {}
