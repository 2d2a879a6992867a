// The dashboards' proof (`npm run test:dashboards`, scripts/observability/test-dashboards.sh): a real
// Prometheus scraping a distributed suite under load. It needs Prometheus and the servers of
// scripts/infra, which the script provides, so it is a project of its own, set up as the chart's
// render tests are (test/helm/jest.config.js).
const chart = require('../helm/jest.config.js');

const [project] = chart.projects;

module.exports = {
  rootDir: chart.rootDir,
  projects: [{ ...project, displayName: 'dashboards', testMatch: ['<rootDir>/test/dashboards/**/*.prom-spec.ts'] }],
};
