// Two sizes of test: fast unit specs beside the code, and the end-to-end suite that drives a real
// server over HTTP (test/e2e). SWC compiles with decorator metadata so Nest wiring works unchanged.
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

const common = {
  transform,
  moduleNameMapper: pathsToModuleNameMapper(),
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/setup-timeout.ts'],
    },
  ],
};
