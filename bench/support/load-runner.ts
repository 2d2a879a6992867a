import type { LoadSettings } from './load-generator';

/** The part of autocannon's API (it ships no types) this runner uses. */
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  overallRate?: number;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  idReplacement: boolean;
  requests?: { setupRequest: (request: { body?: string }) => { body?: string } }[];
}
type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: unknown) => void) => unknown;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- autocannon is CommonJS without types
const autocannon = require('autocannon') as Autocannon;

/**
 * The load generator's own process (see `generateLoad`): runs autocannon with the settings given as
 * JSON in its first argument and prints autocannon's result as one JSON line. Run through autocannon's
 * API rather than its command line, which cannot change a body per request: each request's body gets
 * the time it is built in place of `[<now>]`, as a client stamps the events it sends.
 */
const NOW_PLACEHOLDER = '[<now>]';

const settings = JSON.parse(process.argv[2] ?? '{}') as LoadSettings;
const stampsTime = settings.body.includes(NOW_PLACEHOLDER);

autocannon(
  {
    url: settings.url,
    connections: settings.connections,
    duration: settings.durationSeconds,
    overallRate: settings.overallRate,
    method: 'POST',
    headers: { ...settings.headers },
    body: settings.body,
    // Each `[<id>]` becomes a fresh id per request, after `setupRequest` ran.
    idReplacement: true,
    requests: stampsTime
      ? [{ setupRequest: (request) => ({ ...request, body: settings.body.replaceAll(NOW_PLACEHOLDER, new Date().toISOString()) }) }]
      : undefined,
  },
  (error, result) => {
    if (error) {
      console.error(error);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
);
