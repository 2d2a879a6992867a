import { Body, Controller, Delete, Get, Headers, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AdminClient } from '@guidepost/contracts-http';
import { inProcessFetch } from './in-process-fetch';

@Controller('admin/v1/accounts')
class AccountsController {
  @Post()
  @HttpCode(201)
  create(
    @Body() body: { name: string },
    @Headers('authorization') authorization: string,
  ): { id: string; name: string; authorization: string } {
    return { id: 'acme', name: body.name, authorization };
  }

  @Get()
  list(): never {
    throw new Error('a defect');
  }

  @Delete()
  @HttpCode(204)
  remove(): void {}
}

@Module({ controllers: [AccountsController] })
class TestModule {}

describe('inProcessFetch', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    await app.init();
  });

  afterAll(() => app.close());

  it('answers the admin client as the network would, without a listener', async () => {
    const admin = new AdminClient('https://unreachable.invalid', 'a-token', inProcessFetch(app));

    await expect(admin.createAccount({ name: 'Acme' })).resolves.toEqual({ id: 'acme', name: 'Acme', authorization: 'Bearer a-token' });
    await expect(admin.listAccounts()).rejects.toMatchObject({ status: 500 });
  });

  it('passes status, headers and an empty answer through', async () => {
    const send = inProcessFetch(app);

    const created = await send('http://x/admin/v1/accounts?unused=1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"A"}',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    const removed = await send('http://x/admin/v1/accounts', { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
  });
});
