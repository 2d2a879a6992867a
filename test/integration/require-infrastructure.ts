/**
 * Integration specs talk to real servers. Their endpoints come from the environment that
 * `scripts/infra/start.sh` writes (`source "$(scripts/infra/start.sh --print-env-file)"`), or from the
 * containers that the global set-up starts when GUIDEPOST_TEST_SERVERS=containers; a missing one fails
 * the run with a hint instead of skipping the specs silently.
 */
const REQUIRED = ['GUIDEPOST_KAFKA_BROKERS', 'GUIDEPOST_DATABASE_URL', 'GUIDEPOST_CLICKHOUSE_URL', 'GUIDEPOST_S3_ENDPOINT'];

const missing = REQUIRED.filter((name) => !process.env[name]);
if (missing.length > 0) {
  throw new Error(
    `integration specs need real servers, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: ` +
      'start them with scripts/infra/start.sh and load the environment file it prints, or run the specs with ' +
      'GUIDEPOST_TEST_SERVERS=containers (servers in containers: see the README)',
  );
}

jest.setTimeout(60_000);
