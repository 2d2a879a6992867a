import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loggedFailures } from './logged-failures';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'logged-failures-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A log file written as the servers write theirs: pino's JSON lines, errors under `err`. */
function serverLog(name: string, write: (logger: pino.Logger) => void): { name: string; logFile: string } {
  const logFile = join(dir, `${name}.log`);
  const destination = pino.destination({ dest: logFile, sync: true });
  write(pino(destination));
  destination.flushSync();
  return { name, logFile };
}

function failure(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}\n    at stage (import-staging.service.ts:45:11)\n    at ImportsController.events (imports.controller.ts:36:17)`;
  return error;
}

describe('loggedFailures', () => {
  it('tells each error a server logged, with its process, request and stack', async () => {
    const ingestion = serverLog('ingestion-0', (logger) => {
      logger.info({ reqId: 'r-1', statusCode: 202 }, 'request completed');
      logger.error({ reqId: 'r-2', err: failure('cannot read properties of undefined') }, 'cannot read properties of undefined');
    });
    const gateway = serverLog('gateway', (logger) => logger.fatal({ err: failure('out of memory') }, 'out of memory'));

    const report = await loggedFailures([ingestion, gateway]);

    expect(report).toMatch(/^The servers logged 2 error\(s\) or 5xx answer\(s\):/);
    expect(report).toContain('[ingestion-0] ');
    expect(report).toContain('request r-2: Error: cannot read properties of undefined\n        at stage (import-staging.service.ts:45:11)');
    expect(report).toContain('[gateway] ');
    expect(report).toContain('Error: out of memory');
  });

  it('tells the reason of a 5xx other than 500, as the server logs it: a warning of one line', async () => {
    const ingestion = serverLog('ingestion-0', (logger) =>
      logger.warn(
        { reqId: 'r-3' },
        'POST /v2/accounts/a1/import/events answered 503: Request failed after 1 retries: Error: Retryable HTTP status: 503',
      ),
    );

    expect(await loggedFailures([ingestion])).toMatch(
      /^The servers logged 1 error\(s\) or 5xx answer\(s\):\n\[ingestion-0\] \S+ request r-3: POST \/v2\/accounts\/a1\/import\/events answered 503: Request failed after 1 retries/,
    );
  });

  it('is undefined when nothing went wrong: other warnings, readiness probes answering 503, request lines and text that is not JSON pass', async () => {
    const quiet = serverLog('content', (logger) => {
      logger.warn({ err: failure('the event store is unavailable') }, 'consumer waiting for the event store');
      logger.warn('GET /health/ready answered 503: not ready: bus (consumer group of guidepost.mail)');
      logger.error({ url: '/health/ready', statusCode: 503 }, 'request completed');
    });
    const missing = { name: 'segment', logFile: join(dir, 'never-written.log') };

    expect(await loggedFailures([quiet, missing])).toBeUndefined();
  });

  it('tells the first ten and how many there were in all', async () => {
    const noisy = serverLog('profile', (logger) => {
      for (let index = 1; index <= 12; index += 1) logger.error({ err: failure(`defect ${index}`) }, `defect ${index}`);
    });

    const report = await loggedFailures([noisy]);

    expect(report).toMatch(/^The servers logged 12 error\(s\) or 5xx answer\(s\) \(the first 10\):/);
    expect(report).toContain('Error: defect 10\n');
    expect(report).not.toContain('Error: defect 11');
  });
});
