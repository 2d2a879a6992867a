// The Helm chart's render tests (helm/guidepost), run by scripts/helm/test-chart.sh (`npm run
// test:chart`, part of `npm test`) after helm lint and kubernetes-validate. They spawn helm, so they
// are a project of their own and not part of the unit specs.
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
      displayName: 'chart',
      rootDir: path.resolve(__dirname, '../..'),
      testMatch: ['<rootDir>/test/helm/**/*.helm-spec.ts'],
    },
  ],
};
