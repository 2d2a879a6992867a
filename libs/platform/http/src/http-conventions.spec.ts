import { Readable } from 'node:stream';
import { Controller, Get, HttpCode, Module, Post, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { API_VERSION_HEADER, PUBLIC_API_VERSION, statusAcknowledgement } from '@guidepost/contracts-http';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import {
  AcceptsBody,
  AdminTokenGuard,
  configureHttpServer,
  csvRows,
  CsvRendering,
  DomainError,
  fastifyAdapterOptions,
  InboundBody,
  ndjsonValues,
  PlatformHttpModule,
  userIdsOf,
} from './index';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const config = loadConfig({
  GUIDEPOST_BODY_LIMIT_BYTES: '4096',
  GUIDEPOST_FILE_LIMIT_BYTES: '8192',
  GUIDEPOST_ADMIN_TOKEN: ADMIN_TOKEN,
});

/** What a handler saw of the request body, so tests can assert on it. */
async function describeBody(body: InboundBody): Promise<unknown> {
  if (body.kind !== 'records') return body;
  const records: unknown[] = [];
  const read = body.format === 'ndjson' ? ndjsonValues(body.stream) : csvRows(body.stream);
  for await (const record of read) records.push(record);
  return { kind: body.kind, format: body.format, origin: body.origin, records };
}

@Controller('test')
class ConventionsController {
  @Post('records')
  @HttpCode(200)
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  records(@InboundBody() body: InboundBody): Promise<unknown> {
    return describeBody(body);
  }

  @Post('user-ids')
  @HttpCode(200)
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  async userIds(@InboundBody() body: InboundBody): Promise<{ user_ids: string[] }> {
    const ids: string[] = [];
    for await (const id of userIdsOf(body)) ids.push(id);
    return { user_ids: ids };
  }

  @Post('json-only')
  @HttpCode(200)
  @AcceptsBody('json')
  jsonOnly(@InboundBody() body: InboundBody): InboundBody {
    return body;
  }

  @Post('publish')
  @HttpCode(200)
  publish(): unknown {
    return statusAcknowledgement();
  }

  @Get('events')
  @CsvRendering({ flatten: ['attributes'], omit: ['internal'] })
  events(): unknown[] {
    return [
      { name: 'click', attributes: { b: 2, a: 'x' }, internal: 1, tags: ['t1', 't2'] },
      { name: 'say "hi", then\nleave', attributes: { c: null }, user_id: null },
    ];
  }

  @Get('throttled')
  throttled(): never {
    throw new DomainError('throttled', 'too many requests for account a1', { retryAfterSeconds: 3 });
  }

  @Get('broken')
  broken(): never {
    throw new Error('connection string postgres://secret@db');
  }

  @Get('admin')
  @UseGuards(AdminTokenGuard)
  admin(): unknown {
    return statusAcknowledgement();
  }
}

@Module({
  imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule],
  controllers: [ConventionsController],
})
class ConventionsTestModule {}

interface Problem {
  error: boolean;
  status: number;
  title: string;
  detail: string;
}

describe('HTTP conventions over a real server', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(
      ConventionsTestModule,
      new FastifyAdapter(fastifyAdapterOptions(config)),
      { bodyParser: false, logger: false },
    );
    await configureHttpServer(app, config);
    await app.init();
    await app.listen(0, '127.0.0.1');
    base = `${await app.getUrl()}/test`;
  });

  afterAll(async () => {
    await app.close();
  });

  const post = (path: string, contentType: string | undefined, body?: RequestInit['body']): Promise<Response> =>
    fetch(`${base}/${path}`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body });

  async function expectProblem(response: Response, status: number, title: string): Promise<Problem> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const problem = (await response.json()) as Problem;
    expect(problem).toEqual({ error: true, status, title, detail: expect.any(String) });
    return problem;
  }

  describe('request bodies', () => {
    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('answers %s with 415 naming the accepted types', async (type) => {
      const problem = await expectProblem(await post('records', type, 'a=1'), 415, 'Unsupported Media Type');
      expect(problem.detail).toContain(`'${type}'`);
      expect(problem.detail).toContain('application/json');
      expect(problem.detail).toContain('text/csv');
    });

    it('answers a body without Content-Type with 415', async () => {
      const problem = await expectProblem(await post('records', undefined, new Uint8Array([1, 2, 3])), 415, 'Unsupported Media Type');
      expect(problem.detail).toMatch(/^a body without Content-Type is not supported; send application\/json, /);
    });

    it('answers a body type the endpoint does not take with 415 naming what it takes', async () => {
      const problem = await expectProblem(await post('json-only', 'text/csv', 'a\n1\n'), 415, 'Unsupported Media Type');
      expect(problem.detail).toBe("Content-Type 'text/csv' is not supported; this endpoint takes application/json");
    });

    it('answers a JSON body over the limit with 413 naming the limit', async () => {
      const body = JSON.stringify({ padding: 'x'.repeat(5000) });
      const problem = await expectProblem(await post('records', 'application/json', body), 413, 'Payload Too Large');
      expect(problem.detail).toBe('request body exceeds the 4 KB limit');
    });

    it('answers a streamed NDJSON body over the limit with 413 while reading it', async () => {
      const lines = Readable.toWeb(Readable.from(Array.from({ length: 200 }, (_, i) => `{"n":${i},"pad":"${'y'.repeat(40)}"}\n`)));
      const response = await fetch(`${base}/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: lines,
        duplex: 'half',
      });
      expect((await expectProblem(response, 413, 'Payload Too Large')).detail).toBe('request body exceeds the 4 KB limit');
    });

    it('passes JSON through parsed and reports why malformed JSON is not JSON', async () => {
      expect(await (await post('records', 'application/json; charset=utf-8', '{"a":[1,2]}')).json()).toEqual({ kind: 'json', value: { a: [1, 2] } });
      const problem = await expectProblem(await post('records', 'application/json', '{"a":'), 400, 'Bad Request');
      expect(problem.detail).toMatch(/^body: is not valid JSON \(.+\)$/);
    });

    it('streams NDJSON to the handler as values, ignoring blank lines and indentation', async () => {
      const response = await post('records', 'application/ndjson', '{"a":1}\n\n   {"b":2}  \r\n');
      expect(await response.json()).toEqual({
        kind: 'records',
        format: 'ndjson',
        origin: 'body',
        records: [
          { line: 1, value: { a: 1 } },
          { line: 3, value: { b: 2 } },
        ],
      });
    });

    it('streams CSV to the handler as rows, quoted line breaks included', async () => {
      const response = await post('records', 'text/csv', 'id,note\n\n  1 ,"two\nlines"\n');
      expect(await response.json()).toEqual({
        kind: 'records',
        format: 'csv',
        origin: 'body',
        records: [
          { line: 1, cells: ['id', 'note'] },
          { line: 3, cells: ['1', 'two\nlines'] },
        ],
      });
    });

    it('names the line of a malformed NDJSON record', async () => {
      const problem = await expectProblem(await post('records', 'application/ndjson', '{"a":1}\n{"a":\n'), 400, 'Bad Request');
      expect(problem.detail).toMatch(/^line 2: is not valid JSON/);
    });

    it('accepts an empty POST without Content-Type', async () => {
      const response = await post('publish', undefined);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 200, title: 'OK' });
    });

    it('gives an endpoint that takes a body an empty body when none was sent', async () => {
      expect(await (await post('records', undefined)).json()).toEqual({ kind: 'empty' });
      expect(await (await post('records', 'application/json', '')).json()).toEqual({ kind: 'empty' });
    });
  });

  describe('file uploads', () => {
    function form(file: Blob | undefined, filename = 'ids.csv'): FormData {
      const data = new FormData();
      data.append('note', 'hello');
      if (file) data.append('file', file, filename);
      return data;
    }

    it('takes multipart/form-data, detecting CSV from the file name', async () => {
      const response = await post('records', undefined, form(new Blob(['user_id\nu1\n\n u2 \n'], { type: 'text/csv' })));
      expect(await response.json()).toEqual({
        kind: 'records',
        format: 'csv',
        origin: 'file',
        records: [
          { line: 1, cells: ['user_id'] },
          { line: 2, cells: ['u1'] },
          { line: 4, cells: ['u2'] },
        ],
      });
    });

    it('takes form-data parts sent as multipart/mixed, as curl -H "Content-Type: multipart/mixed" -F does', async () => {
      const encoded = new Request('http://localhost/', { method: 'POST', body: form(new Blob(['"u1"\n"u2"\n']), 'ids.ndjson') });
      const contentType = encoded.headers.get('content-type')!.replace('multipart/form-data', 'multipart/mixed');
      const response = await post('user-ids', contentType, await encoded.arrayBuffer());
      expect(await response.json()).toEqual({ user_ids: ['u1', 'u2'] });
    });

    it('detects NDJSON from the first non-blank character when name and type say nothing', async () => {
      const file = new Blob(['\n  {"a":1}\n'], { type: 'application/octet-stream' });
      const body = (await (await post('records', undefined, form(file, 'upload.bin'))).json()) as { format: string };
      expect(body.format).toBe('ndjson');
    });

    it('answers an upload without the file field with 400', async () => {
      const problem = await expectProblem(await post('records', undefined, form(undefined)), 400, 'Bad Request');
      expect(problem.detail).toMatch(/^file: is required/);
    });

    it('answers a file over the file limit with 413 naming the limit', async () => {
      const problem = await expectProblem(await post('records', undefined, form(new Blob(['u\n'.repeat(5000)]))), 413, 'Payload Too Large');
      expect(problem.detail).toBe('file exceeds the 8 KB limit');
    });
  });

  describe('user ids', () => {
    it('reads JSON, NDJSON and CSV with or without a header', async () => {
      const ids = async (type: string, body: string): Promise<unknown> => (await post('user-ids', type, body)).json();
      expect(await ids('application/json', '{"user_ids":["a","b"]}')).toEqual({ user_ids: ['a', 'b'] });
      expect(await ids('application/ndjson', '"a"\n\n"b"\n')).toEqual({ user_ids: ['a', 'b'] });
      expect(await ids('text/csv', 'userId\na\nb')).toEqual({ user_ids: ['a', 'b'] });
      expect(await ids('text/csv', 'a\n  b\n')).toEqual({ user_ids: ['a', 'b'] });
    });

    it('names the field or line at fault', async () => {
      const detail = async (type: string, body: string): Promise<string> =>
        (await expectProblem(await post('user-ids', type, body), 400, 'Bad Request')).detail;
      expect(await detail('application/json', '{"ids":["a"]}')).toBe('user_ids: is required');
      expect(await detail('application/json', '{"user_ids":["a",7]}')).toBe('user_ids.1: must be string');
      expect(await detail('application/ndjson', '"a"\n42\n')).toMatch(/^line 2: /);
      expect(await detail('text/csv', 'a\nb,c\n')).toMatch(/^line 2: /);
      expect(await detail('text/csv', 'a\n"b\nc\n')).toBe('line 2: quoted field unterminated');
    });
  });

  describe('responses', () => {
    it('answers an unknown route with a 404 Problem', async () => {
      const response = await fetch(`${base}/nowhere`);
      expect((await expectProblem(response, 404, 'Not Found')).detail).toContain('/test/nowhere');
      expect(response.headers.get(API_VERSION_HEADER)).toBe(PUBLIC_API_VERSION);
    });

    it('renders JSON by default and CSV under Accept: text/csv', async () => {
      const json = await fetch(`${base}/events`, { headers: { accept: '*/*' } });
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      const csv = await fetch(`${base}/events`, { headers: { accept: 'text/csv' } });
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(await csv.text()).toBe(
        'name,attributes.a,attributes.b,attributes.c,tags,user_id\r\n' +
          'click,x,2,,"[""t1"",""t2""]",\r\n' +
          '"say ""hi"", then\nleave",,,,,\r\n',
      );
    });

    it('renders an acknowledgement as CSV with status and title', async () => {
      const response = await fetch(`${base}/publish`, { method: 'POST', headers: { accept: 'text/csv' } });
      expect(await response.text()).toBe('status,title\r\n200,OK\r\n');
    });

    it('stamps every response with the API version and the request id', async () => {
      const ok = await fetch(`${base}/events`, { headers: { 'x-request-id': 'trace-42' } });
      expect(ok.headers.get(API_VERSION_HEADER)).toBe(PUBLIC_API_VERSION);
      expect(ok.headers.get('x-request-id')).toBe('trace-42');
      const problem = await post('records', 'text/plain', 'x');
      expect(problem.headers.get(API_VERSION_HEADER)).toBe(PUBLIC_API_VERSION);
      expect(problem.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('sends Retry-After with a throttled problem', async () => {
      const response = await fetch(`${base}/throttled`);
      await expectProblem(response, 429, 'Too Many Requests');
      expect(response.headers.get('retry-after')).toBe('3');
    });

    it('answers an unexpected error with 500 and no internals', async () => {
      const problem = await expectProblem(await fetch(`${base}/broken`), 500, 'Internal Server Error');
      expect(problem.detail).not.toContain('postgres');
    });

    it('guards admin routes with the bearer token', async () => {
      await expectProblem(await fetch(`${base}/admin`), 401, 'Unauthorized');
      await expectProblem(await fetch(`${base}/admin`, { headers: { authorization: 'Bearer wrong' } }), 401, 'Unauthorized');
      const allowed = await fetch(`${base}/admin`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(allowed.status).toBe(200);
    });
  });
});
