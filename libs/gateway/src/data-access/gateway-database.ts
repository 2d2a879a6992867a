import type { ServiceDatabaseOptions } from '@guidepost/platform-database';
import { GATEWAY_SCHEMA } from '../gateway-schema';
import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CreateGatewayTables1732200000001 } from './migrations/0001-create-gateway-tables';
import { CreateGatewayDeadLetters1795537290473 } from './migrations/0002-create-dead-letters';
import { CreateRateLimitWindows1795540000000 } from './migrations/0003-create-rate-limit-windows';
import { CreateGatewayIdempotencyKeys1795600000000 } from './migrations/0004-create-idempotency-keys';
import { IndexGatewayMessagingRetention1795610000000 } from './migrations/0005-index-messaging-retention';

/** The gateway's PostgreSQL schema, its entities and its migrations (in order; append only). */
export const GATEWAY_DATABASE: ServiceDatabaseOptions = {
  schema: GATEWAY_SCHEMA,
  entities: [AccountEntity, ApiKeyEntity],
  migrations: [
    CreateGatewayTables1732200000001,
    CreateGatewayDeadLetters1795537290473,
    CreateRateLimitWindows1795540000000,
    CreateGatewayIdempotencyKeys1795600000000,
    IndexGatewayMessagingRetention1795610000000,
  ],
};
