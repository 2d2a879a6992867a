import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { Body, Controller, Delete, Get, Header, HttpCode, Logger, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Static, Type } from '@sinclair/typebox';
import { API_VERSION_HEADER, PUBLIC_API_VERSION, statusAcknowledgement } from '@guidepost/contracts-http';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import {
  AcceptsBody,
  configureHttpServer,
  csvRows,
  CsvRendering,
  fastifyAdapterOptions,
  InboundBody,
  ndjsonValues,
  PlatformHttpModule,
  userIdsOf,
  ValidBody,
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

const GreetingSchema = Type.Object(
  { name: Type.String({ minLength: 1 }), times: Type.Optional(Type.Integer()) },
  { additionalProperties: false },
);

@Controller('test')
class ConventionsController {
  @Post('greeting')
  @HttpCode(200)
  greeting(@ValidBody(GreetingSchema) greeting: Static<typeof GreetingSchema>): { greeting: string } {
    return { greeting: `hello ${greeting.name}`.repeat(greeting.times ?? 1) };
  }

  @Post('read-with')
  @HttpCode(200)
  readWith(@ValidBody((value) => ({ read: value })) body: { read: unknown }): unknown {
    return body;
  }

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

  @Get('cached')
  @Header('Cache-Control', 'public, max-age=300')
  cached(): unknown {
    return { public: true };
  }

  @Get('throttled')
  throttled(): never {
    throw new DomainError('throttled', 'too many requests for account a1', { retryAfterSeconds: 3 });
  }

  @Get('busy')
  busy(): never {
    throw new DomainError('unavailable', 'query: did not finish within its time budget', {
      retryAfterSeconds: 10,
      cause: new Error('TIMEOUT_EXCEEDED'),
    });
  }

  @Get('broken')
  broken(): never {
    throw new Error('connection string postgres://secret@db');
  }

  @Get('items/:item_id')
  item(@Param('item_id') itemId: string): unknown {
    return { item_id: itemId };
  }

  @Delete('items/:item_id')
  deleteItem(@Param('item_id') itemId: string): unknown {
    return { deleted: itemId };
  }
}

/** A route of the admin API: every route under `/admin/` takes the admin token. */
@Controller('admin/v1/things')
class AdminThingsController {
  @Get()
  list(): unknown {
    return statusAcknowledgement();
  }

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown): unknown {
    return body;
  }
}

/** A route of the internal API, which this host (no internal token, as the standalone shape) hides. */
@Controller('internal/v1/things')
class InternalThingsController {
  @Post()
  @HttpCode(200)
  create(@Body() body: unknown): unknown {
    return body;
  }
}

@Module({
  imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule],
  controllers: [ConventionsController, AdminThingsController, InternalThingsController],
})
class ConventionsTestModule {}

interface Problem {
  error: boolean;
  status: number;
  title: string;
  detail: string;
}

/** An answer read off the socket: what a client sees of requests that no HTTP library would send. */
interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Writes `request` as is on a new connection and reads the answer until the server closes it (or `wait` passes). */
async function rawExchange(url: string, request: Buffer | string, wait = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.setTimeout(wait, () => socket.destroy());
  });
  const text = received.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(headEnd + 4) };
}

/**
 * Sends a request's head alone, announcing a body it never sends, and resolves with the status the
 * server answers: a server that waits for the body before judging the request never answers (null).
 */
async function statusBeforeBody(url: string, head: string, wait = 2_000): Promise<number | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(head));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!received.includes('\r\n\r\n')) return;
      socket.destroy();
      resolve(Number(received.split(' ', 2)[1]));
    });
    socket.on('error', reject);
    socket.setTimeout(wait, () => {
      socket.destroy();
      resolve(null);
    });
  });
}

function expectRawProblem(answer: RawAnswer, status: number): Problem {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const problem = JSON.parse(answer.body) as Problem;
  expect(problem).toEqual({ error: true, status, title: expect.any(String), detail: expect.any(String) });
  return problem;
}

async function startApp(appConfig: typeof config): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    ConventionsTestModule,
    new FastifyAdapter(fastifyAdapterOptions(appConfig)),
    {
      bodyParser: false,
      logger: false,
    },
  );
  await configureHttpServer(app, appConfig);
  await app.init();
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('HTTP conventions over a real server', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await startApp(config);
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
    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
      'answers %s with 415 naming the accepted types',
      async (type) => {
        const problem = await expectProblem(await post('records', type, 'a=1'), 415, 'Unsupported Media Type');
        expect(problem.detail).toContain(`'${type}'`);
        expect(problem.detail).toContain('application/json');
        expect(problem.detail).toContain('text/csv');
      },
    );

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
      expect(await (await post('records', 'application/json; charset=utf-8', '{"a":[1,2]}')).json()).toEqual({
        kind: 'json',
        value: { a: [1, 2] },
      });
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

  describe('Content-Encoding', () => {
    const gzipped = (text: string | Buffer): Buffer => gzipSync(text);
    const postEncoded = (path: string, contentType: string, body: Buffer, encoding = 'gzip'): Promise<Response> =>
      fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': contentType, 'content-encoding': encoding }, body });

    it('decodes a gzip body of every format: JSON, NDJSON, CSV and an upload', async () => {
      expect(await (await postEncoded('greeting', 'application/json', gzipped('{"name":"Ada"}'))).json()).toEqual({
        greeting: 'hello Ada',
      });
      const ndjson = await postEncoded('records', 'application/x-ndjson', gzipped('{"a":1}\n'), 'x-gzip');
      expect(await ndjson.json()).toEqual({ kind: 'records', format: 'ndjson', origin: 'body', records: [{ line: 1, value: { a: 1 } }] });
      expect(await (await postEncoded('user-ids', 'text/csv', gzipped('user_id\nu1\n'), 'GZip')).json()).toEqual({ user_ids: ['u1'] });
      const form = new FormData();
      form.append('file', new Blob(['user_id\nu2\n'], { type: 'text/csv' }), 'ids.csv');
      const upload = new Response(form);
      const uploaded = await postEncoded('user-ids', upload.headers.get('content-type')!, gzipped(Buffer.from(await upload.arrayBuffer())));
      expect(await uploaded.json()).toEqual({ user_ids: ['u2'] });
    });

    it('takes identity as no encoding, and an empty body whatever its encoding', async () => {
      expect(await (await postEncoded('greeting', 'application/json', Buffer.from('{"name":"Ada"}'), 'identity')).json()).toEqual({
        greeting: 'hello Ada',
      });
      expect(await (await postEncoded('records', 'application/json', Buffer.alloc(0))).json()).toEqual({ kind: 'empty' });
    });

    it('counts the limit on the decoded bytes: a small body that inflates past it is a 413, answered at once', async () => {
      // 10 MB of zeros: about 10 KB of gzip, and 2,500 times the 4 KB limit once decoded.
      const bomb = gzipped(Buffer.alloc(10 * 1024 * 1024));
      for (const [path, type] of [
        ['records', 'application/json'],
        ['records', 'application/ndjson'],
        ['user-ids', 'text/csv'],
      ]) {
        const started = Date.now();
        const problem = await expectProblem(await postEncoded(path, type, bomb), 413, 'Payload Too Large');
        expect({ type, detail: problem.detail }).toEqual({ type, detail: 'request body exceeds the 4 KB limit' });
        expect(Date.now() - started).toBeLessThan(1_000);
      }
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(10 * 1024 * 1024, 'a')], { type: 'text/csv' }), 'ids.csv');
      const upload = new Response(form);
      const uploaded = await postEncoded('user-ids', upload.headers.get('content-type')!, gzipped(Buffer.from(await upload.arrayBuffer())));
      expect((await expectProblem(uploaded, 413, 'Payload Too Large')).detail).toBe('file exceeds the 8 KB limit');
    });

    it('answers a body that is not gzip data with 400', async () => {
      for (const type of ['application/json', 'application/ndjson']) {
        const problem = await expectProblem(await postEncoded('records', type, Buffer.from('{"a":1}\n')), 400, 'Bad Request');
        expect(problem.detail).toMatch(/^body: is not gzip data, as Content-Encoding says/);
      }
    });

    it.each(['br', 'deflate', 'compress', 'zstd', 'gzip, gzip'])(
      'answers %s with 415 naming it and the codings taken, in Accept-Encoding too',
      async (encoding) => {
        const response = await postEncoded('records', 'application/json', Buffer.from('{"a":1}'), encoding);
        const problem = await expectProblem(response, 415, 'Unsupported Media Type');
        expect(problem.detail).toBe(`Content-Encoding '${encoding}' is not supported; send the body as identity or gzip`);
        expect(response.headers.get('accept-encoding')).toBe('identity, gzip');
      },
    );
  });

  describe('@ValidBody', () => {
    it('hands the handler the body checked against its schema', async () => {
      expect(await (await post('greeting', 'application/json', '{"name":"Ada","times":2}')).json()).toEqual({
        greeting: 'hello Adahello Ada',
      });
    });

    it('answers a body the schema refuses with 400 naming the field', async () => {
      expect((await expectProblem(await post('greeting', 'application/json', '{"name":3}'), 400, 'Bad Request')).detail).toBe(
        'name: must be string',
      );
      expect((await expectProblem(await post('greeting', 'application/json', '[]'), 400, 'Bad Request')).detail).toBe(
        'body: must be object',
      );
    });

    it('judges a request without a body as {}, so the answer names the missing field', async () => {
      expect((await expectProblem(await post('greeting', undefined), 400, 'Bad Request')).detail).toBe('name: is required');
      expect((await expectProblem(await post('greeting', 'application/json', ''), 400, 'Bad Request')).detail).toBe('name: is required');
      expect(await (await post('read-with', undefined)).json()).toEqual({ read: {} });
    });

    it('takes JSON only, as @AcceptsBody("json") would', async () => {
      const problem = await expectProblem(await post('greeting', 'text/csv', 'name\nAda\n'), 415, 'Unsupported Media Type');
      expect(problem.detail).toBe("Content-Type 'text/csv' is not supported; this endpoint takes application/json");
    });
  });

  describe('JSON bodies', () => {
    /** `{"a":[[...]]}`: `levels` arrays and objects inside each other. */
    const nested = (levels: number): string => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

    it('takes 64 levels of nesting and refuses more with 400 naming the limit', async () => {
      expect((await post('records', 'application/json', nested(64))).status).toBe(200);
      for (const levels of [65, 2000]) {
        const problem = await expectProblem(await post('records', 'application/json', nested(levels)), 400, 'Bad Request');
        expect(problem.detail).toBe('body: is nested more than 64 levels deep (arrays and objects)');
      }
    });

    it('does not count brackets inside strings, escaped quotes included', async () => {
      const value = { a: `\\"${'['.repeat(100)}`, b: '{'.repeat(100) };
      expect(await (await post('records', 'application/json', JSON.stringify(value))).json()).toEqual({ kind: 'json', value });
    });

    it.each([
      [
        'a number beyond a double',
        String.raw`{"attributes":{"n":1e400}}`,
        'attributes.n: is a number too large to store (beyond ±1.8e308; JSON would write it as null)',
      ],
      [
        'a negative one in an array',
        String.raw`{"a":[1,-1e999]}`,
        'a.1: is a number too large to store (beyond ±1.8e308; JSON would write it as null)',
      ],
      ['NUL in a value', String.raw`{"name":"a\u0000b"}`, String.raw`name: contains a NUL character (\u0000), which cannot be stored`],
      [
        'NUL in a key',
        String.raw`{"attributes":{"k\u0000":1}}`,
        String.raw`attributes.k\u0000: has a name that contains a NUL character (\u0000), which cannot be stored`,
      ],
      [
        'a lone surrogate in a list',
        String.raw`{"ids":["x","\udc00"]}`,
        String.raw`ids.1: contains a lone UTF-16 surrogate (\ud800 to \udfff), which is not a character`,
      ],
      [
        'a lone surrogate as the body',
        String.raw`"\ud800"`,
        String.raw`body: contains a lone UTF-16 surrogate (\ud800 to \udfff), which is not a character`,
      ],
    ])('refuses %s with 400 naming the path', async (_case, body, detail) => {
      expect((await expectProblem(await post('records', 'application/json', body), 400, 'Bad Request')).detail).toBe(detail);
    });

    it('takes surrogate pairs, large finite numbers and other control characters', async () => {
      const value = { emoji: '😀', big: 1.7e308, tab: 'a\tb\u0001' };
      expect(await (await post('records', 'application/json', JSON.stringify(value))).json()).toEqual({ kind: 'json', value });
    });

    it('refuses a body that is not UTF-8 instead of reading U+FFFD', async () => {
      const body = Buffer.concat([Buffer.from('{"plan":"pro'), Buffer.from([0xff]), Buffer.from('"}')]);
      const problem = await expectProblem(await post('records', 'application/json', body), 400, 'Bad Request');
      expect(problem.detail).toBe('body: is not UTF-8 text (an invalid byte sequence)');
    });
  });

  describe('invalid UTF-8 in synchronous record bodies', () => {
    const withByte = (before: string, after: string): Buffer =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);

    it.each([
      ['CSV', 'text/csv', withByte('user_id\nu1\nu', '2\n'), 'line 3'],
      ['NDJSON', 'application/ndjson', withByte('"u1"\n\n"', '"\n'), 'line 3'],
    ])('answers %s with 400 naming the line', async (_format, type, body, line) => {
      const problem = await expectProblem(await post('user-ids', type, body), 400, 'Bad Request');
      expect(problem.detail).toBe(`${line}: is not UTF-8 text (an invalid byte sequence)`);
    });

    it('answers an uploaded file with 400 naming the line', async () => {
      const data = new FormData();
      data.append('file', new Blob([withByte('user_id\nu1\n', '\n')]), 'ids.csv');
      const problem = await expectProblem(await post('user-ids', undefined, data), 400, 'Bad Request');
      expect(problem.detail).toBe('line 3: is not UTF-8 text (an invalid byte sequence)');
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

    /** A multipart body as a client writes it on the wire, each part given as its header lines and content. */
    function multipart(boundary: string, parts: readonly { headers: string[]; content: string }[], close = true): string {
      const body = parts.map((part) => `--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n${part.content}\r\n`).join('');
      return close ? `${body}--${boundary}--\r\n` : body;
    }

    it('takes the part curl sends under multipart/mixed (Content-Disposition: attachment)', async () => {
      const body = multipart('------------------------8b70479c1356e49c', [
        {
          headers: ['Content-Disposition: attachment; name="file"; filename="ids.csv"', 'Content-Type: application/octet-stream'],
          content: 'user_id\nu1\nu2\n',
        },
      ]);
      const response = await post('user-ids', 'multipart/mixed; boundary=------------------------8b70479c1356e49c', body);
      expect(await response.json()).toEqual({ user_ids: ['u1', 'u2'] });
    });

    it('takes a browser form with other fields around the file and a boundary in quotes', async () => {
      const body = multipart('----WebKitFormBoundaryx8Z3', [
        { headers: ['Content-Disposition: form-data; name="note"'], content: 'a note\r\n--not-the-boundary' },
        {
          headers: ['Content-Disposition: form-data; name="file"; filename="ids.ndjson"', 'Content-Type: application/x-ndjson'],
          content: '"u1"\n"u2"',
        },
        { headers: ['Content-Disposition: form-data; name="after"'], content: 'x' },
      ]);
      const response = await post('user-ids', 'multipart/form-data; boundary="----WebKitFormBoundaryx8Z3"', `preamble\r\n${body}epilogue`);
      expect(await response.json()).toEqual({ user_ids: ['u1', 'u2'] });
    });

    it('refuses two file parts with 400 instead of reading the first only', async () => {
      const part = { headers: ['Content-Disposition: form-data; name="file"; filename="ids.csv"'], content: 'user_id\nu1\n' };
      const problem = await expectProblem(
        await post('user-ids', 'multipart/form-data; boundary=b0undary', multipart('b0undary', [part, part])),
        400,
        'Bad Request',
      );
      expect(problem.detail).toBe('file: was sent more than once; upload one file per request');
    });

    it('refuses an upload cut short before its closing boundary with 400', async () => {
      const part = { headers: ['Content-Disposition: form-data; name="file"; filename="ids.csv"'], content: 'user_id\nu1\n' };
      const problem = await expectProblem(
        await post('user-ids', 'multipart/form-data; boundary=b0undary', multipart('b0undary', [part], false)),
        400,
        'Bad Request',
      );
      expect(problem.detail).toMatch(/^body: is not valid multipart data \(it ends before the closing boundary/);
    });

    it('refuses a multipart body without a boundary with 400', async () => {
      const problem = await expectProblem(await post('user-ids', 'multipart/mixed', '--x\r\n\r\n'), 400, 'Bad Request');
      expect(problem.detail).toMatch(/^Content-Type: a multipart body needs a boundary parameter/);
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

  describe('requests refused before any route runs', () => {
    it('answers a malformed percent escape with a Problem that does not quote the path', async () => {
      const response = await fetch(`${base}/items/%E0%A4%A`);
      const problem = await expectProblem(response, 400, 'Bad Request');
      expect(problem.detail).toMatch(/^path: is not a valid URL/);
      expect(problem.detail).not.toContain('%E0');
      expect(response.headers.get(API_VERSION_HEADER)).toBe(PUBLIC_API_VERSION);
    });

    it('answers raw non-ASCII bytes in the path with a Problem', async () => {
      const request = Buffer.concat([
        Buffer.from('GET /test/items/'),
        Buffer.from([0xc3, 0xa9, 0xff]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]);
      const problem = expectRawProblem(await rawExchange(base, request), 400);
      expect(problem.detail).toMatch(/^path: is not a valid request target/);
    });

    it('answers a path parameter over 1024 characters with 414, and takes one of 1024', async () => {
      expect((await fetch(`${base}/items/${'x'.repeat(1024)}`)).status).toBe(200);
      const problem = await expectProblem(await fetch(`${base}/items/${'x'.repeat(1025)}`), 414, 'URI Too Long');
      expect(problem.detail).toBe('path: a path segment (an id) is longer than 1024 characters');
    });

    it('answers a URL longer than the head limit with 414 and oversized headers with 431, never quoting them', async () => {
      const longUrl = expectRawProblem(
        await rawExchange(base, `GET /test/events?q=${'y'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
        414,
      );
      expect(longUrl.detail).toBe('the request line (method and URL) is longer than the 16 KB limit of the request head');
      const bigHeaders = expectRawProblem(
        await rawExchange(base, `GET /test/events HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(20_000)}\r\n\r\n`),
        431,
      );
      expect(bigHeaders.detail).toBe('the request line and headers exceed the 16 KB limit');
    });

    it('answers a request that is not HTTP with a Problem', async () => {
      expectRawProblem(await rawExchange(base, 'GET /test/events HTTP/1.1\r\nBad Header\r\n\r\n'), 400);
    });

    it('answers NUL in a path parameter with 400 naming the parameter', async () => {
      const problem = await expectProblem(await fetch(`${base}/items/a%00b`), 400, 'Bad Request');
      expect(problem.detail).toBe(String.raw`item_id: contains a NUL character (\u0000), which cannot be stored`);
    });

    it('answers a method the path does not take with 405 and Allow', async () => {
      const response = await fetch(`${base}/items/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const problem = await expectProblem(response, 405, 'Method Not Allowed');
      expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD');
      expect(problem.detail).toBe('POST is not allowed on this path; it takes DELETE, GET, HEAD');
      const put = await fetch(`${base}/events`, { method: 'PUT' });
      await expectProblem(put, 405, 'Method Not Allowed');
      expect(put.headers.get('allow')).toBe('GET, HEAD');
      await expectProblem(await fetch(`${base}/items/x/nowhere`, { method: 'POST' }), 404, 'Not Found');
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

    it('tells every answer, problems included, not to be sniffed nor stored, each header once', async () => {
      const answers = [
        await fetch(`${base}/events`),
        await fetch(`${base}/events`, { headers: { accept: 'text/csv' } }),
        await post('records', 'text/plain', 'x'),
        await fetch(`${base}/nowhere`),
        await fetch(`${base}/items/%E0%A4%A`),
      ];
      for (const answer of answers) {
        expect({
          status: answer.status,
          nosniff: answer.headers.get('x-content-type-options'),
          caching: answer.headers.get('cache-control'),
        }).toEqual({
          status: answer.status,
          nosniff: 'nosniff',
          caching: 'no-store',
        });
      }
      const refusedByNode = await rawExchange(base, `GET /test/events HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(20_000)}\r\n\r\n`);
      expect(refusedByNode.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    });

    it('keeps the caching an answer chose for itself', async () => {
      const response = await fetch(`${base}/cached`);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
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

    it('logs a 500 as an error with its stack, and a foreseen 503 as a warning of one line', async () => {
      const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        await expectProblem(await fetch(`${base}/busy`), 503, 'Service Unavailable');
        expect(errors).not.toHaveBeenCalled();
        expect(warnings.mock.calls).toEqual([
          ['GET /test/busy answered 503: query: did not finish within its time budget (cause: TIMEOUT_EXCEEDED)'],
        ]);

        await expectProblem(await fetch(`${base}/broken`), 500, 'Internal Server Error');
        expect(errors.mock.calls).toEqual([
          [expect.objectContaining({ message: 'connection string postgres://secret@db', stack: expect.any(String) as string })],
        ]);
        expect(warnings).toHaveBeenCalledTimes(1);
      } finally {
        errors.mockRestore();
        warnings.mockRestore();
      }
    });

    it('guards every admin route with the bearer token', async () => {
      const admin = `${new URL(base).origin}/admin/v1/things`;
      await expectProblem(await fetch(admin), 401, 'Unauthorized');
      await expectProblem(await fetch(admin, { headers: { authorization: 'Bearer wrong' } }), 401, 'Unauthorized');
      const allowed = await fetch(admin, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(allowed.status).toBe(200);
      const created = await fetch(admin, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(await created.json()).toEqual({ a: 1 });
    });

    it.each([
      ['an admin request without the token', '/admin/v1/things', 401],
      ['an internal call to a host that hides the internal API', '/internal/v1/things', 404],
      ['a request for no route', '/test/nowhere', 404],
    ])('refuses %s before its body arrives', async (_case, path, status) => {
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n`;
      expect(await statusBeforeBody(base, head)).toBe(status);
    });
  });
});

describe('a request body that arrives too slowly', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await startApp(loadConfig({ GUIDEPOST_REQUEST_TIMEOUT_MS: '1000', GUIDEPOST_ADMIN_TOKEN: ADMIN_TOKEN }));
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app.close();
  });

  it('is cut off after the request timeout with a 408 Problem', async () => {
    const started = Date.now();
    const head = 'POST /test/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":';
    const problem = expectRawProblem(await rawExchange(base, head), 408);
    expect(problem.detail).toBe('the request (headers and body) did not arrive within 1 s');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lets a streamed body that keeps arriving within the timeout through', async () => {
    const body = Readable.toWeb(
      Readable.from(
        (async function* () {
          for (const line of ['"u1"\n', '"u2"\n']) {
            yield Buffer.from(line);
            await delay(200);
          }
        })(),
      ),
    );
    const response = await fetch(`${base}/test/user-ids`, {
      method: 'POST',
      headers: { 'content-type': 'application/ndjson' },
      body,
      duplex: 'half',
    });
    expect(await response.json()).toEqual({ user_ids: ['u1', 'u2'] });
  });
});
