// The dashboards' proof (`npm run test:dashboards`, scripts/observability/test-dashboards.sh): a real
// Prometheus scraping a distributed suite under load. It needs Prometheus and the servers of
// scripts/infra, which the script provides, so it is a project of its own, not part of the others.
const path = require('node:path');
const base = require('../../jest.config.js');

const unit = base.projects.find((project) => project.displayName === 'unit');

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  projects: [
    {
      transform: unit.transform,
      moduleNameMapper: unit.moduleNameMapper,
      testEnvironment: 'node',
      modulePathIgnorePatterns: ['<rootDir>/dist'],
      displayName: 'dashboards',
      rootDir: path.resolve(__dirname, '../..'),
      testMatch: ['<rootDir>/test/dashboards/**/*.prom-spec.ts'],
    },
  ],
};
