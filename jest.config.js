// The repository's Jest projects, by size and by what they run against:
// - unit: *.spec.ts beside the code, in process (npm run test:unit);
// - medium: *.medium-spec.ts, against one embedded PostgreSQL per run (npm run test:medium);
// - integration: *.int-spec.ts, adapters against real servers (npm run test:distributed);
// - e2e: test/e2e over HTTP against a real standalone server (npm run test:e2e);
// - e2e-distributed: the same specs against the gateway of a distributed suite (npm run test:distributed);
// - distributed: test/distributed, scaling, replicas and shutdown of the distributed shape (npm run test:distributed);
// - faults: test/distributed's specs that stop, freeze and kill, on servers of their own (npm run test:faults);
// - docs: the API reference at /docs in headless Chromium (npm run test:docs);
// - docs-distributed: the same against the gateway (no npm script runs it).
// test/helm/jest.config.js (chart) and test/cluster/jest.config.js (e2e-cluster, cluster) build on
// these. SWC compiles with decorator metadata so Nest wiring works unchanged.
const { pathsToModuleNameMapper } = require('./tools/jest/paths');

const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};

/** The specs of test/distributed that stop, freeze or kill the servers or processes under them. */
const FAULT_SPECS = ['outages', 'freezes', 'kill-each-service', 'crash-safety'];

const common = {
  transform,
  moduleNameMapper: pathsToModuleNameMapper(),
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      // Repositories, the outbox relay, migrations and configuration against the embedded PostgreSQL
      // of the standalone shape (one per run, started by test/medium; a database per spec file through
      // @guidepost/platform-database/testing) and the ClickHouse engine in process: no servers to
      // start, seconds to run.
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.medium-spec.ts'],
      globalSetup: '<rootDir>/test/medium/global-setup.ts',
      globalTeardown: '<rootDir>/test/medium/global-teardown.ts',
    },
    {
      // Adapters against real servers (Kafka, PostgreSQL, ClickHouse, MinIO): those of scripts/infra, or
      // containers when GUIDEPOST_TEST_SERVERS=containers (test/containers).
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/containers/global-setup.ts',
      globalTeardown: '<rootDir>/test/containers/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/integration/require-infrastructure.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
    {
      // The same end-to-end suite against the gateway of the distributed shape on real servers. The
      // specs that start and stop a standalone server of their own are the standalone shape's crash,
      // shutdown and start-up tests; the distributed shape's are in test/distributed.
      ...common,
      displayName: 'e2e-distributed',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [
        '/import-resilience\\.e2e-spec\\.ts$',
        '/persistence\\.e2e-spec\\.ts$',
        '/shutdown\\.e2e-spec\\.ts$',
        '/crash\\.e2e-spec\\.ts$',
        '/start-up\\.e2e-spec\\.ts$',
        // The standalone shape's dead letters: its server sends mail through the test's SMTP server.
        // The distributed shape's are in libs/platform/database (integration) and test/distributed.
        '/dead-letters\\.e2e-spec\\.ts$',
        // The standalone shape's event store process; the distributed shape's store outages are test/distributed's.
        '/event-store-outage\\.e2e-spec\\.ts$',
        // The standalone shape's stores frozen; the distributed shape's are test/distributed/freezes.
        '/freezes\\.e2e-spec\\.ts$',
        // A standalone server with a certificate of its own; the gateway serves HTTPS through the same host code.
        '/tls\\.e2e-spec\\.ts$',
        // The standalone shape's data folder and demo start; the distributed shape has neither.
        '/data-folder\\.e2e-spec\\.ts$',
        '/demo\\.e2e-spec\\.ts$',
      ],
      globalSetup: '<rootDir>/test/distributed/e2e-global-setup.ts',
      globalTeardown: '<rootDir>/test/distributed/e2e-global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
    {
      // Scaling, replicas and shutdown of the distributed shape; each spec runs a suite of its own.
      ...common,
      displayName: 'distributed',
      testMatch: ['<rootDir>/test/distributed/**/*.dist-spec.ts'],
      testPathIgnorePatterns: FAULT_SPECS.map((name) => `/${name}\\.dist-spec\\.ts$`),
      globalSetup: '<rootDir>/test/distributed/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
    {
      // Outages, freezes, kills and crashes of the distributed shape (scripts/test-faults.sh runs them
      // on a set of servers of their own); each spec runs a suite of its own.
      ...common,
      displayName: 'faults',
      testMatch: FAULT_SPECS.map((name) => `<rootDir>/test/distributed/${name}.dist-spec.ts`),
      globalSetup: '<rootDir>/test/distributed/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
    {
      // The API reference at /docs in headless Chromium (npm run test:docs installs it first), against
      // the e2e suite's standalone server (or the deployment GUIDEPOST_E2E_BASE_URL names).
      ...common,
      displayName: 'docs',
      testMatch: ['<rootDir>/test/docs/**/*.docs-spec.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
    {
      // The same against the gateway of the distributed shape on real servers.
      ...common,
      displayName: 'docs-distributed',
      testMatch: ['<rootDir>/test/docs/**/*.docs-spec.ts'],
      globalSetup: '<rootDir>/test/distributed/e2e-global-setup.ts',
      globalTeardown: '<rootDir>/test/distributed/e2e-global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
  ],
};
