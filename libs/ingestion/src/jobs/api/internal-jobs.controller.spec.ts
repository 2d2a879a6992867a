import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type CreatedJob, HttpJobRegistryClient, InternalApiError } from '@guidepost/contracts-http';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions, PlatformHttpModule } from '@guidepost/platform-http';
import { JobRegistry } from '../application/job-registry.service';
import { InternalJobsController } from './internal-jobs.controller';

const TOKEN = 'internal-token-for-tests-0123456789abcdef';

/** Stands in for the registry's database: records what it was asked to create. */
class RecordingRegistry {
  readonly created: { accountId: string; name: string }[] = [];

  readonly abandoned: { accountId: string; jobId: string; reason: string }[] = [];

  createJob(input: { accountId: string; name: string }): Promise<CreatedJob> {
    this.created.push(input);
    return Promise.resolve({ id: `job-${this.created.length}`, startedAt: '2025-01-01T00:00:00.000Z' });
  }

  abandonJob(input: { accountId: string; jobId: string; reason: string }): Promise<void> {
    this.abandoned.push(input);
    return Promise.resolve();
  }
}

/** The controller over real HTTP, called by the client the other services use. */
describe('InternalJobsController', () => {
  const config = loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN });
  const registry = new RecordingRegistry();
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    @Module({
      imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule],
      controllers: [InternalJobsController],
      providers: [{ provide: JobRegistry, useValue: registry }],
    })
    class IngestionApiModule {}
    app = await NestFactory.create<NestFastifyApplication>(IngestionApiModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
      bodyParser: false,
      logger: false,
    });
    await configureHttpServer(app, config);
    await app.listen(0, '127.0.0.1');
    baseUrl = await app.getUrl();
  });

  afterAll(() => app.close());

  it('creates the job of the account in the path for HttpJobRegistryClient', async () => {
    const job = await new HttpJobRegistryClient(baseUrl, TOKEN).createJob({ accountId: 'acme', name: 'Add Segment Users' });
    expect(job).toEqual({ id: 'job-1', startedAt: '2025-01-01T00:00:00.000Z' });
    expect(registry.created).toEqual([{ accountId: 'acme', name: 'Add Segment Users' }]);
  });

  it('abandons a job for HttpJobRegistryClient (its creator s transaction failed), and may be asked again', async () => {
    const client = new HttpJobRegistryClient(baseUrl, TOKEN);
    await client.abandonJob({ accountId: 'acme', jobId: 'job/7', reason: 'the commit failed' });
    await client.abandonJob({ accountId: 'acme', jobId: 'job/7', reason: 'the commit failed' });
    expect(registry.abandoned).toEqual([
      { accountId: 'acme', jobId: 'job/7', reason: 'the commit failed' },
      { accountId: 'acme', jobId: 'job/7', reason: 'the commit failed' },
    ]);
  });

  it('refuses a job name that no service uses, naming the known ones', async () => {
    const error: unknown = await new HttpJobRegistryClient(baseUrl, TOKEN)
      .createJob({ accountId: 'acme', name: 'Mine Bitcoin' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InternalApiError);
    expect(error).toMatchObject({
      service: 'ingestion',
      status: 400,
      detail: expect.stringContaining('name: must be one of "Import Profiles"'),
    });
  });

  it('answers only the holder of the internal token', async () => {
    const error: unknown = await new HttpJobRegistryClient(baseUrl, `${TOKEN}-wrong`)
      .createJob({ accountId: 'acme', name: 'Import Events' })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 401 });
  });
});
