import { parseArgs } from 'node:util';
import { startChdbHttpServer } from './chdb-http-server';

const USAGE = 'usage: node dist/tools/chdb-http/src/main.js --path <data dir> [--host 127.0.0.1] [--port 18123] [--verbose]';

/**
 * Serves one chdb engine over ClickHouse's HTTP interface, so that several Guidepost processes share
 * one ClickHouse in tests and local runs (see `startChdbHttpServer`). Stops on SIGINT or SIGTERM.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '18123' },
      path: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.path) throw new Error(`--path is required\n${USAGE}`);
  const server = await startChdbHttpServer({ host: values.host, port: portOf(values.port), path: values.path, verbose: values.verbose });
  process.stdout.write(`chdb-http serving ${values.path} at ${server.url}\n`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => fail(error),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new Error(`--port must be an integer from 0 to 65535, not ${JSON.stringify(text)}\n${USAGE}`);
  return port;
}

function fail(error: unknown): void {
  process.stderr.write(`chdb-http: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

main().catch(fail);
