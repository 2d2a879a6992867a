import { Module } from '@nestjs/common';
import { OpenApiController } from './api/openapi.controller';

/**
 * `GET /openapi.json`: the OpenAPI document of the public API. Needs nothing from the host; the
 * gateway host (and the standalone host) import it beside `GatewayModule`.
 */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule {}
