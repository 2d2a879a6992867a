import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { DomainError } from '@guidepost/platform-errors';
import type { FastifyReply } from 'fastify';
import { API_REFERENCE_PATH, CONTENT_SECURITY_POLICY, PAGE_HTML, START_SCRIPT, START_SCRIPT_NAME } from './api-reference-page';

interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** The files of `swagger-ui-dist` the page uses: a fixed list, so no request names any other file. */
const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Read once at start: a missing or broken package stops the host at start rather than on a request. */
function loadAssets(): ReadonlyMap<string, Asset> {
  const packageDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>(
    Object.entries(SWAGGER_UI_FILES).map(([name, contentType]) => [name, { contentType, body: readFileSync(join(packageDir, name)) }]),
  );
  assets.set(START_SCRIPT_NAME, { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(START_SCRIPT) });
  return assets;
}

/**
 * `GET /docs`: an interactive reference of the public API (Swagger UI over `/openapi.json`), with its
 * assets under `/docs/`. Like the document, it needs no credentials. The gateway's own route in both
 * shapes; nothing is fetched from outside this server.
 */
@Controller(API_REFERENCE_PATH.slice(1))
export class ApiReferenceController {
  private readonly assets = loadAssets();

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  @Header('Referrer-Policy', 'no-referrer')
  @Header('Cache-Control', 'public, max-age=300')
  page(): string {
    return PAGE_HTML;
  }

  @Get(':asset')
  asset(@Param('asset') name: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer {
    const asset = this.assets.get(name);
    if (asset === undefined) throw new DomainError('not_found', `The API reference has no file '${name}'`);
    reply.header('Content-Type', asset.contentType).header('Cache-Control', 'public, max-age=300');
    return asset.body;
  }
}
