import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { createClient } from '@clickhouse/client';
import { Client as MinioClient } from 'minio';
import { Client as PgClient } from 'pg';
import { QueryFailedError } from 'typeorm';
import { classifyFailure, PermanentFailure, TransientFailure } from './failure-class';

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/** A driver error as pg raises it, wrapped by TypeORM as it does for a failed query. */
function queryFailed(code: string, message: string): QueryFailedError {
  return new QueryFailedError('INSERT ...', [], Object.assign(new Error(message), { code }));
}

describe('classifyFailure', () => {
  describe('a dependency that is down is transient, as each client really reports it', () => {
    it('PostgreSQL refusing connections (pg)', async () => {
      const client = new PgClient({ host: '127.0.0.1', port: await closedPort(), connectionTimeoutMillis: 2_000 });
      expect(classifyFailure(await failureOf(client.connect()))).toBe('transient');
    });

    it("PostgreSQL frozen (pg): silent during the handshake, or after it, past the client's wait limits", async () => {
      // A server that takes connections and, with `handshake`, lets the client in (AuthenticationOk,
      // ReadyForQuery) before it stops answering: what a stopped process looks like through open sockets.
      const sockets: Socket[] = [];
      const frozen = (handshake: boolean) =>
        createServer((socket) => {
          sockets.push(socket);
          socket.once('data', () => handshake && socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49])));
        });
      for (const handshake of [false, true]) {
        const server = frozen(handshake);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const client = new PgClient({
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          connectionTimeoutMillis: 300,
          query_timeout: 300,
        });
        try {
          const failure = await failureOf(client.connect().then(() => client.query('SELECT 1')));
          expect({ handshake, failure: String(failure), class: classifyFailure(failure) }).toMatchObject({ handshake, class: 'transient' });
        } finally {
          await client.end().catch(() => undefined);
          for (const socket of sockets) socket.destroy();
          await new Promise((resolve) => server.close(resolve));
        }
      }
    });

    it('ClickHouse refusing connections (@clickhouse/client over HTTP)', async () => {
      const client = createClient({ url: `http://127.0.0.1:${await closedPort()}`, request_timeout: 2_000 });
      try {
        expect(classifyFailure(await failureOf(client.command({ query: 'SELECT 1' })))).toBe('transient');
      } finally {
        await client.close();
      }
    });

    it('MinIO refusing connections (minio)', async () => {
      const minio = new MinioClient({
        endPoint: '127.0.0.1',
        port: await closedPort(),
        useSSL: false,
        accessKey: 'k',
        secretKey: 'secret-key',
      });
      expect(classifyFailure(await failureOf(minio.bucketExists('guidepost')))).toBe('transient');
    });

    it('MinIO answering 503 (a drive it cannot write, or starting up), once minio has tried again itself', async () => {
      // What MinIO sends when it cannot reach enough of its drives: 503, its code in a header and in the XML body.
      const busy = createHttpServer((_request, response) => {
        response.writeHead(503, { 'content-type': 'application/xml', 'x-minio-error-code': 'SlowDownWrite' });
        response.end(
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDownWrite</Code><Message>Resource requested is unwritable, please reduce your request rate</Message></Error>',
        );
      });
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const minio = new MinioClient({
        endPoint: '127.0.0.1',
        port: (busy.address() as AddressInfo).port,
        useSSL: false,
        accessKey: 'k',
        secretKey: 'secret-key',
      });
      const retried = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        expect(classifyFailure(await failureOf(minio.putObject('guidepost', 'imports/a.ndjson', Buffer.from('{}\n'), 3)))).toBe(
          'transient',
        );
        expect(classifyFailure(await failureOf(minio.statObject('guidepost', 'imports/a.ndjson')))).toBe('transient');
        // Its own retry, which is what hides the server's code from us.
        expect(retried).toHaveBeenCalledWith(expect.stringContaining('Retryable HTTP status: 503'));
      } finally {
        retried.mockRestore();
        await new Promise((resolve) => busy.close(resolve));
      }
    });

    it('another service refusing connections (fetch)', async () => {
      expect(classifyFailure(await failureOf(fetch(`http://127.0.0.1:${await closedPort()}/`)))).toBe('transient');
    });

    it('PostgreSQL shutting down, starting, out of connections, or losing a race (SQLSTATE)', () => {
      for (const code of ['57P01', '57P03', '08006', '53300', '40001', '40P01']) {
        expect(classifyFailure(queryFailed(code, 'server says no'))).toBe('transient');
      }
      expect(classifyFailure(new Error('Connection terminated unexpectedly'))).toBe('transient');
    });

    it('ClickHouse overloaded or timing out (exception codes)', () => {
      for (const code of ['159', '202', '210', '241', '252']) {
        expect(classifyFailure(Object.assign(new Error('ClickHouse says no'), { code, type: 'X' }))).toBe('transient');
      }
    });

    it('MinIO busy or starting (S3 codes) and kafkajs retriable errors', () => {
      expect(classifyFailure(Object.assign(new Error('Please reduce your request rate'), { code: 'SlowDown' }))).toBe('transient');
      expect(classifyFailure(Object.assign(new Error('Server not initialized'), { code: 'XMinioServerNotInitialized' }))).toBe('transient');
      expect(classifyFailure(Object.assign(new Error('Resource requested is unwritable'), { code: 'SlowDownWrite' }))).toBe('transient');
      expect(classifyFailure(Object.assign(new Error('The specified bucket does not exist'), { code: 'NoSuchBucket' }))).toBe('transient');
      expect(classifyFailure(Object.assign(new Error('leader moved'), { name: 'KafkaJSProtocolError', retriable: true }))).toBe(
        'transient',
      );
      expect(classifyFailure(new TransientFailure('the process is stopping'))).toBe('transient');
    });

    it('looks through causes and aggregated errors', () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      expect(classifyFailure(new Error('the import failed', { cause: refused }))).toBe('transient');
      expect(classifyFailure(new AggregateError([new Error('x'), refused], 'all failed'))).toBe('transient');
    });
  });

  describe('a message that can never be handled is permanent', () => {
    it('says so itself', () => {
      expect(classifyFailure(new PermanentFailure('cannot be stored'))).toBe('permanent');
      expect(classifyFailure(Object.assign(new Error('mailbox does not exist'), { permanent: true }))).toBe('permanent');
    });

    it('holds data PostgreSQL cannot store (data exceptions, program limits)', () => {
      expect(classifyFailure(queryFailed('22P05', 'unsupported Unicode escape sequence'))).toBe('permanent');
      expect(classifyFailure(queryFailed('54000', 'index row size exceeds maximum'))).toBe('permanent');
    });

    it('the outermost mark wins over what it wraps', () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      expect(classifyFailure(new PermanentFailure('given up', { cause: refused }))).toBe('permanent');
    });
  });

  it('anything else is unrecognised: retried a few times, then dead-lettered', () => {
    expect(classifyFailure(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe('unrecognised');
    expect(classifyFailure(queryFailed('23505', 'duplicate key value violates unique constraint'))).toBe('unrecognised');
    expect(classifyFailure('a string')).toBe('unrecognised');
  });

  it('is unrecognised when it says it is not transient, though its cause is a timeout', () => {
    const timedOut = Object.assign(new Error('Timeout exceeded: elapsed 10.2 seconds'), { code: '159' });
    expect(classifyFailure(Object.assign(new Error('query: did not finish in time', { cause: timedOut }), { transient: false }))).toBe(
      'unrecognised',
    );
  });
});
