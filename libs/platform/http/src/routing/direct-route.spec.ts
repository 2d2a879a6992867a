import { Controller, HttpCode, type OnModuleInit, Module, Param, Post } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { configureHttpServer, CsvRendering, fastifyAdapterOptions, IdentifierParam, PlatformHttpModule, ValidBody } from '../index';
import { directRoutesOf, serveDirectRoute, ServesDirectly } from './direct-route';

const config = loadConfig({ GUIDEPOST_BODY_LIMIT_BYTES: '4096' });

const NoteSchema = Type.Object(
  { text: Type.String({ minLength: 1 }), tags: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);
type Note = Static<typeof NoteSchema>;

/** The same handler behind both routes; `fail` makes it throw as a service would. */
function answerOf(accountId: string, userId: string, note: Note): Promise<{ account: string; user: string; text: string }> {
  if (note.text === 'fail') return Promise.reject(new DomainError('not_found', `user ${userId} is unknown`));
  return Promise.resolve({ account: accountId, user: userId, text: note.text });
}

const DIRECT = { method: 'POST', url: '/direct/:account_id/users/:user_id/notes' } as const;

@Controller()
@ServesDirectly(DIRECT)
class NotesController implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: AppConfig,
  ) {}

  onModuleInit(): void {
    serveDirectRoute<Note>(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.appConfig, {
      ...DIRECT,
      status: 200,
      ids: ['user_id'],
      body: NoteSchema,
      csv: { flatten: ['tags'] },
      handle: (params, note) => answerOf(params['account_id'], params['user_id'], note),
    });
  }

  @Post('nest/:account_id/users/:user_id/notes')
  @HttpCode(200)
  @CsvRendering({ flatten: ['tags'] })
  viaNest(
    @Param('account_id') accountId: string,
    @Param('user_id', IdentifierParam) userId: string,
    @ValidBody(NoteSchema) note: Note,
  ): Promise<unknown> {
    return answerOf(accountId, userId, note);
  }
}

@Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule], controllers: [NotesController] })
class NotesModule {}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Everything a client sees, but the date and the generated request id. */
async function answerTo(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id'));
  return { status: response.status, headers, body: await response.text() };
}

const REQUESTS: Record<string, { path?: string; init: RequestInit }> = {
  valid: { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi","tags":["a","b"]}' } },
  'as CSV': {
    init: { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/csv' }, body: '{"text":"hi","tags":["a"]}' },
  },
  'a field at fault': { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":""}' } },
  'an unknown field': { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"a","x":1}' } },
  'no body': { init: { method: 'POST' } },
  'broken JSON': { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":' } },
  'NDJSON instead of JSON': { init: { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{"text":"a"}\n' } },
  'a user id at fault': {
    path: 'users/%00x/notes',
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"a"}' },
  },
  'a user id too long': {
    path: `users/${'u'.repeat(300)}/notes`,
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
  },
  'a failing handler': { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"fail"}' } },
  'a body over the limit': {
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"text":"${'a'.repeat(5000)}"}` },
  },
};

describe('direct routes', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(NotesModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
      bodyParser: false,
      logger: false,
    });
    await configureHttpServer(app, config);
    await app.init();
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(() => app.close());

  it.each(Object.keys(REQUESTS))('answer %s exactly as the controller route they stand for', async (name) => {
    const { path = 'users/u1/notes', init } = REQUESTS[name];
    const direct = await answerTo(`${base}/direct/acme/${path}`, init);
    const nest = await answerTo(`${base}/nest/acme/${path}`, init);
    expect(direct).toEqual(nest);
  });

  it("answer with the handler's result and the success status", async () => {
    const answer = await answerTo(`${base}/direct/acme/users/u1/notes`, REQUESTS['valid'].init);
    expect(answer).toMatchObject({ status: 200, body: '{"account":"acme","user":"u1","text":"hi"}' });
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', vary: 'Accept' });
  });

  it('are in the route table: another method is a 405 naming the allowed one', async () => {
    const answer = await answerTo(`${base}/direct/acme/users/u1/notes`, { method: 'PUT' });
    expect(answer.status).toBe(405);
    expect(answer.headers['allow']).toBe('POST');
  });

  it('are listed on their controller', () => {
    expect(directRoutesOf(NotesController)).toEqual([DIRECT]);
  });
});
