// The end-to-end smoke: the specs that between them use every route family and the whole data path
// (track and history, import, export, a segment job, content of each kind, people, jobs, analytics,
// authentication and tenancy). The runs that prove a way of deploying rather than the API itself (the
// containers switch, the images, the cluster) run these; the whole suite runs against both shapes.
const SMOKE_SPECS = [
  'content',
  'experience-kinds',
  'events',
  'imports',
  'exports',
  'segments',
  'profiles',
  'groups',
  'jobs',
  'analytics',
  'gateway',
  'tenant-isolation',
];

module.exports = {
  /** For `--testPathPatterns`: a path of a smoke spec. */
  smokePattern: `test/e2e/(${SMOKE_SPECS.join('|')})\\.e2e-spec\\.ts$`,
  /** For `testPathIgnorePatterns`: a path of any other end-to-end spec. */
  notSmokePattern: `/test/e2e/(?!(${SMOKE_SPECS.join('|')})\\.e2e-spec\\.ts$)[^/]+$`,
};
