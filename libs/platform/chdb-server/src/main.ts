import { parseArgs } from 'node:util';
import { type ChdbHttpServer, startChdbHttpServer } from './chdb-http-server';

const USAGE =
  'usage: node dist/libs/platform/chdb-server/src/main.js --path <data dir> [--host 127.0.0.1] [--port 18123] [--memory-bytes <n>] [--verbose]\n' +
  '(the password of the default user, if any, in CHDB_HTTP_PASSWORD)';
/** The environment variable of the password: an argument would show in every process listing. */
export const PASSWORD_VARIABLE = 'CHDB_HTTP_PASSWORD';
/** How long a front whose parent died lets its running statement finish before it ends the engine. */
const ORPHAN_STOP_MS = 2_000;

/** What a front started by a parent (`EmbeddedClickHouse`) tells it once it serves. */
export interface ServingMessage {
  readonly serving: string;
}

/**
 * Serves one chdb engine over ClickHouse's HTTP interface (see `startChdbHttpServer`): for several
 * Guidepost processes sharing one ClickHouse in tests and local runs, and as the standalone shape's
 * event store process. Stops on SIGINT or SIGTERM, and when started with an IPC channel, tells its
 * parent its URL and stops when the parent is gone.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '18123' },
      path: { type: 'string' },
      'memory-bytes': { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.path) throw new Error(`--path is required\n${USAGE}`);
  const memory = values['memory-bytes'];
  const server = await startChdbHttpServer({
    host: values.host,
    port: integerOption('--port', values.port, 65_535),
    path: values.path,
    memoryBytes: memory === undefined ? undefined : integerOption('--memory-bytes', memory, Number.MAX_SAFE_INTEGER),
    password: process.env[PASSWORD_VARIABLE] || undefined,
    verbose: values.verbose,
  });
  process.stdout.write(`chdb-http serving ${values.path} at ${server.url}\n`);
  process.once('SIGINT', () => stop(server));
  process.once('SIGTERM', () => stop(server));
  if (process.send !== undefined) {
    process.send({ serving: server.url } satisfies ServingMessage);
    // The parent died or let go: nobody is left to stop this engine, and its data folder stays locked
    // while it runs. A statement still running after the deadline ends as it would have in the parent.
    process.once('disconnect', () => {
      setTimeout(() => process.exit(0), ORPHAN_STOP_MS).unref();
      stop(server);
    });
  }
}

function stop(server: ChdbHttpServer): void {
  server.close().then(
    () => process.exit(0),
    (error: unknown) => fail(error),
  );
}

function integerOption(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > max)
    throw new Error(`${name} must be an integer from 0 to ${max}, not ${JSON.stringify(text)}\n${USAGE}`);
  return value;
}

function fail(error: unknown): void {
  process.stderr.write(`chdb-http: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

if (require.main === module) main().catch(fail);
