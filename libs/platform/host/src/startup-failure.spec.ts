import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, loadConfig, StartupError } from '@guidepost/platform-config';
import { assertPortAvailable, startupFailureLine } from './startup-failure';

/** The error a real call fails with, for the message to be judged on what Node really throws. */
async function failureOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('the action did not fail');
}

function expectOneLine(line: string): void {
  expect(line).not.toMatch(/\n/);
  expect(line).not.toMatch(/\bat .+:\d+:\d+/); // no stack frame
  expect(line).toMatch(/^Guidepost cannot start: .+\. Fix: .+\.$/);
}

describe('startupFailureLine', () => {
  let listening: Server | undefined;
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'startup-failure-'));
  });

  afterEach(async () => {
    await new Promise<void>((done) => (listening ? listening.close(() => done()) : done()));
    listening = undefined;
    await rm(folder, { recursive: true, force: true });
  });

  it('names a port in use and how to choose another', async () => {
    listening = createServer();
    await new Promise<void>((done) => listening!.listen(0, '127.0.0.1', done));
    const { port } = listening.address() as { port: number };

    const line = startupFailureLine('Guidepost', await failureOf(() => assertPortAvailable('127.0.0.1', port)));

    expectOneLine(line);
    expect(line).toBe(
      `Guidepost cannot start: port ${port} on 127.0.0.1 is already in use by another process. Fix: stop that process, or set GUIDEPOST_PORT to a free port.`,
    );
  });

  it('finds a free port free', async () => {
    await expect(assertPortAvailable('127.0.0.1', 0)).resolves.toBeUndefined();
  });

  it("names an address that is not this machine's", async () => {
    const line = startupFailureLine('Guidepost', await failureOf(() => assertPortAvailable('192.0.2.1', 8080)));
    expectOneLine(line);
    expect(line).toContain('cannot listen on 192.0.2.1: it is not an address of this machine');
    expect(line).toContain('set GUIDEPOST_HOST');
  });

  it('names a data folder that cannot be made, and the setting that moves it', async () => {
    const file = join(folder, 'a-file');
    await writeFile(file, 'not a folder');

    const line = startupFailureLine('Guidepost', await failureOf(() => mkdir(join(file, 'data'), { recursive: true })));

    expectOneLine(line);
    expect(line).toContain(`part of ${join(file, 'data')} is a file where a folder is needed`);
    expect(line).toContain('set GUIDEPOST_DATA_DIR to a folder this user can write');
  });

  it.each([
    ['EACCES', 'this user may not write /srv/guidepost/secrets.json (permission denied)'],
    ['EROFS', '/srv/guidepost/secrets.json is on a read-only file system'],
    ['ENOSPC', 'the disk holding /srv/guidepost/secrets.json is full'],
  ])('names a data folder that cannot be written (%s)', (code, problem) => {
    const error = Object.assign(new Error(`${code}: open '/srv/guidepost/secrets.json'`), {
      code,
      syscall: 'open',
      path: '/srv/guidepost/secrets.json',
    });
    const line = startupFailureLine('Guidepost', error);
    expectOneLine(line);
    expect(line).toContain(problem);
    expect(line).toMatch(/GUIDEPOST_DATA_DIR/);
  });

  it('says what is wrong with the embedded PostgreSQL and how to get past it', () => {
    const error = new StartupError(
      'PostgreSQL refuses to run as root, and running it as an ordinary user through a user namespace failed (`unshare`: unshare failed: Operation not permitted)',
      'start Guidepost as an ordinary user, allow user namespaces (unshare from util-linux), or set GUIDEPOST_DATABASE_URL to a PostgreSQL server',
    );
    const line = startupFailureLine('Guidepost', error);
    expectOneLine(line);
    expect(line).toBe(`Guidepost cannot start: ${error.problem}. Fix: ${error.fix}.`);
  });

  it('lists every invalid setting on the one line', () => {
    const error = (() => {
      try {
        loadConfig({ GUIDEPOST_PORT: '70000', GUIDEPOST_SHUTDOWN_GRACE_MS: '10' });
      } catch (thrown) {
        return thrown;
      }
      throw new Error('the configuration was accepted');
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    const line = startupFailureLine('Guidepost', error);
    expectOneLine(line);
    expect(line).toMatch(/invalid configuration: GUIDEPOST_PORT: .+; GUIDEPOST_SHUTDOWN_GRACE_MS: /);
  });

  it('names a server that does not answer, found in the cause of a wrapping error', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '127.0.0.1',
      port: 5432,
    });
    const line = startupFailureLine('IngestionService', new Error('the pool could not connect', { cause: new AggregateError([refused]) }));
    expect(line).toBe(
      'IngestionService cannot start: nothing answers at 127.0.0.1:5432 (ECONNREFUSED). Fix: start that server, or correct the setting that points at it (GUIDEPOST_DATABASE_URL, GUIDEPOST_KAFKA_BROKERS, GUIDEPOST_CLICKHOUSE_URL, GUIDEPOST_S3_ENDPOINT, ...).',
    );
  });

  it('gives anything else by its message, on one line, with the way to see more', () => {
    const line = startupFailureLine(
      'Guidepost',
      new Error("the ingestion schema has pending migrations:\nrun the service's `migrate` command first"),
    );
    expectOneLine(line);
    expect(line).toBe(
      "Guidepost cannot start: the ingestion schema has pending migrations: run the service's `migrate` command first. Fix: run again with GUIDEPOST_LOG_LEVEL=debug to see where it failed.",
    );
  });
});
