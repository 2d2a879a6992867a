import { Controller, Get, Header } from '@nestjs/common';
import { buildOpenApiDocument } from '@guidepost/contracts-http';

/**
 * Serves the OpenAPI 3.1 document of the public API. No credentials needed: it describes the
 * interface, not an account. The document is built once and sent as prepared JSON text, so it stays
 * JSON whatever the request's `Accept` asks for.
 */
@Controller()
export class OpenApiController {
  private readonly document = JSON.stringify(buildOpenApiDocument());

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  openApiDocument(): string {
    return this.document;
  }
}
