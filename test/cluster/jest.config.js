// The specs run against the Helm release on the test cluster of scripts/cluster (run by
// scripts/cluster/test.sh, which sets the environment): the smoke of the end-to-end suite through the
// gateway Service, and this folder's specs.
const { resolve } = require('node:path');
const root = require('../../jest.config.js');
const { notSmokePattern } = require('../e2e/smoke.js');

const distributedE2e = root.projects.find((project) => project.displayName === 'e2e-distributed');
const clusterSetup = {
  rootDir: resolve(__dirname, '..', '..'),
  globalSetup: '<rootDir>/test/cluster/require-release.ts',
  globalTeardown: undefined,
};

module.exports = {
  projects: [
    {
      ...distributedE2e,
      ...clusterSetup,
      displayName: 'e2e-cluster',
      // The smoke of the end-to-end suite (test/e2e/smoke.js), tenant isolation among it: every route
      // family and the data path through the release's gateway Service. The whole suite runs against
      // both shapes on loopback; this run proves the chart's release.
      testPathIgnorePatterns: [...distributedE2e.testPathIgnorePatterns, notSmokePattern],
    },
    {
      ...distributedE2e,
      ...clusterSetup,
      displayName: 'cluster',
      testMatch: ['<rootDir>/test/cluster/**/*.cluster-spec.ts'],
      testPathIgnorePatterns: [],
    },
  ],
};
