import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions, PlatformHttpModule, PublicBaseUrl } from '../index';
import { type LinkOrigin, publicBaseUrlOf } from './public-base-url';

const ORIGIN: LinkOrigin = { host: 'api.example.test', encrypted: false, forwarded: undefined, stated: undefined };
const baseOf = (origin: Partial<LinkOrigin>, configured?: string) => publicBaseUrlOf({ ...ORIGIN, ...origin }, configured);

describe('publicBaseUrlOf', () => {
  it('takes GUIDEPOST_PUBLIC_URL as given, whatever the request says', () => {
    const origin = { host: 'evil.test', forwarded: { host: 'evil.test', proto: 'http' }, stated: 'http://evil.test' };
    expect(baseOf(origin, 'https://api.example.com/guidepost')).toEqual({ baseUrl: 'https://api.example.com/guidepost' });
    expect(baseOf({ host: 'not a host' }, 'https://api.example.com')).toEqual({ baseUrl: 'https://api.example.com' });
  });

  it('derives scheme and host from the connection and Host', () => {
    expect(baseOf({ host: 'api.example.test:8443' })).toEqual({ baseUrl: 'http://api.example.test:8443' });
    expect(baseOf({ host: 'API.Example.TEST', encrypted: true })).toEqual({ baseUrl: 'https://api.example.test' });
    expect(baseOf({ host: '127.0.0.1:3000' })).toEqual({ baseUrl: 'http://127.0.0.1:3000' });
    expect(baseOf({ host: 'guidepost_gateway:8080' })).toEqual({ baseUrl: 'http://guidepost_gateway:8080' });
  });

  it('takes an IPv6 host in brackets, with or without a port', () => {
    expect(baseOf({ host: '[::1]:3000' })).toEqual({ baseUrl: 'http://[::1]:3000' });
    expect(baseOf({ host: '[2001:DB8::7]', encrypted: true })).toEqual({ baseUrl: 'https://[2001:db8::7]' });
  });

  it("takes a trusted proxy's X-Forwarded-Host and -Proto, the last entry of each", () => {
    const forwarded = { host: 'client-wrote.test, api.example.com', proto: ['http', 'HTTPS'] };
    expect(baseOf({ host: '10.0.0.5:8080', forwarded })).toEqual({ baseUrl: 'https://api.example.com' });
    expect(baseOf({ host: '10.0.0.5:8080', forwarded: { host: undefined, proto: 'https' } })).toEqual({ baseUrl: 'https://10.0.0.5:8080' });
    expect(baseOf({ host: '10.0.0.5:8080', encrypted: true, forwarded: { host: 'api.example.com', proto: undefined } })).toEqual({
      baseUrl: 'https://api.example.com',
    });
  });

  it("takes the gateway's statement from an internal caller, held to the same rule", () => {
    expect(baseOf({ host: '10.0.0.9:8080', stated: 'https://api.example.com:8443' })).toEqual({ baseUrl: 'https://api.example.com:8443' });
    for (const stated of [
      'api.example.com',
      'https://api.example.com/',
      'ftp://api.example.com',
      'https://a@b',
      ['http://a', 'http://b'],
    ]) {
      expect(baseOf({ stated })).toEqual({ problem: 'x-guidepost-public-base-url: must be http(s)://host[:port]' });
    }
  });

  it.each([
    'api.example.test/evil',
    'user@api.example.test',
    'api.example.test:0',
    'api.example.test:65536',
    'api.example.test:',
    'api example test',
    '-api.example.test',
    'api..example.test',
    '999.1.1.1',
    '::1',
    '[::1',
    '[not:an:address]',
    '[fe80::1%eth0]',
    `${'a'.repeat(64)}.test`,
    `${'abcdefghi.'.repeat(26)}test`,
    '',
  ])('refuses a host that is not host[:port]: %j', (host) => {
    expect(baseOf({ host })).toEqual({ problem: expect.stringMatching(/^Host: is not a host name or IP address/) as string });
    expect(baseOf({ forwarded: { host, proto: 'https' } })).toEqual(
      host === ''
        ? { baseUrl: 'https://api.example.test' }
        : { problem: expect.stringMatching(/^X-Forwarded-Host: is not a host name/) as string },
    );
  });

  it('refuses a request without a host, and a forwarded scheme that is neither http nor https', () => {
    expect(baseOf({ host: undefined })).toEqual({ problem: 'Host: is required, to form the links of the answer' });
    expect(baseOf({ forwarded: { host: undefined, proto: 'gopher' } })).toEqual({ problem: 'X-Forwarded-Proto: must be http or https' });
  });
});

@Controller()
class LinksController {
  @Get('link')
  link(@PublicBaseUrl() baseUrl: string): unknown {
    return { url: `${baseUrl}/v2/accounts/acme/flows/1` };
  }
}

async function appWith(config: AppConfig): Promise<NestFastifyApplication> {
  @Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule], controllers: [LinksController] })
  class LinksModule {}
  const app = await NestFactory.create<NestFastifyApplication>(LinksModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
    bodyParser: false,
    logger: false,
  });
  await configureHttpServer(app, config);
  await app.init();
  return app;
}

describe('@PublicBaseUrl() on a host with the platform conventions', () => {
  const TOKEN = 'internal-token-for-tests-0123456789abcdef';
  const FORWARDED = { host: 'api.example.test:8443', 'x-forwarded-host': 'public.example.com', 'x-forwarded-proto': 'https' };
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await appWith(loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN, GUIDEPOST_TRUSTED_PROXIES: '127.0.0.1,::1,10.0.0.0/8' }));
  });

  afterAll(() => app.close());

  const linkOf = async (remoteAddress: string, headers: Record<string, string>): Promise<unknown> => {
    const response = await app.inject({ url: '/link', remoteAddress, headers });
    return response.json<{ url: string }>().url;
  };

  it('links on the Host the client sent', async () => {
    expect(await linkOf('203.0.113.7', { host: 'api.example.test:8443' })).toBe('http://api.example.test:8443/v2/accounts/acme/flows/1');
  });

  it('honours X-Forwarded-Host and -Proto from a trusted proxy, loopback or configured', async () => {
    for (const proxy of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3']) {
      expect(await linkOf(proxy, FORWARDED)).toBe('https://public.example.com/v2/accounts/acme/flows/1');
    }
  });

  it('ignores them from any other peer', async () => {
    for (const client of ['203.0.113.7', '2001:db8::7', '127.0.0.2']) {
      expect(await linkOf(client, FORWARDED)).toBe('http://api.example.test:8443/v2/accounts/acme/flows/1');
    }
  });

  it("takes the gateway's statement only with the internal token", async () => {
    const stated = { host: '10.0.0.9:8080', 'x-guidepost-public-base-url': 'https://stated.example.com' };
    expect(await linkOf('203.0.113.7', { ...stated, 'x-guidepost-internal-token': TOKEN })).toBe(
      'https://stated.example.com/v2/accounts/acme/flows/1',
    );
    expect(await linkOf('203.0.113.7', { ...stated, 'x-guidepost-internal-token': `${TOKEN}x` })).toBe(
      'http://10.0.0.9:8080/v2/accounts/acme/flows/1',
    );
    expect(await linkOf('203.0.113.7', stated)).toBe('http://10.0.0.9:8080/v2/accounts/acme/flows/1');
  });

  it('answers 400 naming the header when the host is none, before any route', async () => {
    for (const [url, headers, detail] of [
      ['/link', { host: 'api.example.test/evil' }, 'Host: is not a host name'],
      ['/nowhere', { host: 'a b' }, 'Host: is not a host name'],
      ['/link', { 'x-forwarded-host': 'evil.test/x' }, 'X-Forwarded-Host: is not a host name'],
    ] as const) {
      const response = await app.inject({ url, headers, remoteAddress: '127.0.0.1' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, detail: expect.stringContaining(detail) as string });
    }
  });

  it('lets the configured public URL win, and checks no host then', async () => {
    const configured = await appWith(loadConfig({ GUIDEPOST_PUBLIC_URL: 'https://api.example.com' }));
    try {
      const response = await configured.inject({ url: '/link', headers: { host: 'a b', 'x-forwarded-host': 'evil.test' } });
      expect(response.json()).toEqual({ url: 'https://api.example.com/v2/accounts/acme/flows/1' });
    } finally {
      await configured.close();
    }
  });
});
