import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { HttpUserProfileDirectory, UserProfileDirectory } from '@guidepost/contracts-http';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions, PlatformHttpModule } from '@guidepost/platform-http';
import { InternalUserProfilesController } from './internal-user-profiles.controller';

const TOKEN = 'internal-token-for-tests-0123456789abcdef';

/** Stands in for the profile tables: every user whose id starts with `known` has a profile. */
class KnownUsers extends UserProfileDirectory {
  getProfiles(accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const known = userIds.filter((id) => id.startsWith('known'));
    return Promise.resolve(new Map(known.map((id) => [id, { account: accountId, plan: 'pro', nested: { a: [1, null] } }])));
  }
}

/** The controller over real HTTP, called by the client the segment service uses. */
describe('InternalUserProfilesController', () => {
  const config = loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN });
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    @Module({
      imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule],
      controllers: [InternalUserProfilesController],
      providers: [{ provide: UserProfileDirectory, useClass: KnownUsers }],
    })
    class ProfileApiModule {}
    app = await NestFactory.create<NestFastifyApplication>(ProfileApiModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
      bodyParser: false,
      logger: false,
    });
    await configureHttpServer(app, config);
    await app.listen(0, '127.0.0.1');
    baseUrl = await app.getUrl();
  });

  afterAll(() => app.close());

  it('answers the profiles that exist, for HttpUserProfileDirectory', async () => {
    const profiles = await new HttpUserProfileDirectory(baseUrl, TOKEN).getProfiles('acme', ['known-1', 'stranger', 'known-__proto__']);
    expect(profiles).toEqual(
      new Map([
        ['known-1', { account: 'acme', plan: 'pro', nested: { a: [1, null] } }],
        ['known-__proto__', { account: 'acme', plan: 'pro', nested: { a: [1, null] } }],
      ]),
    );
  });

  it('refuses more than 5000 ids in one lookup', async () => {
    const response = await fetch(`${baseUrl}/internal/v1/accounts/acme/user-profiles/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-guidepost-internal-token': TOKEN },
      body: JSON.stringify({ user_ids: Array.from({ length: 5001 }, (_unused, index) => `u${index}`) }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ detail: 'user_ids: must NOT have more than 5000 items' });
  });

  it('answers only the holder of the internal token', async () => {
    const response = await fetch(`${baseUrl}/internal/v1/accounts/acme/user-profiles/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_ids: ['known-1'] }),
    });
    expect(response.status).toBe(401);
  });
});
