import { Module } from '@nestjs/common';
import { ApiReferenceController } from './api/api-reference.controller';
import { OpenApiController } from './api/openapi.controller';

/**
 * `GET /openapi.json`: the OpenAPI document of the public API, and `GET /docs`: its interactive
 * reference. Needs nothing from the host; the gateway host (and the standalone host) import it beside
 * `GatewayModule`.
 */
@Module({ controllers: [OpenApiController, ApiReferenceController] })
export class OpenApiModule {}
