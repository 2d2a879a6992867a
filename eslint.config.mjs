// Lint is architecture: the module-boundary rule below is what keeps services out of each other's
// internals. Scopes say who may use whom; types say which layer may depend on which.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const SERVICE_SCOPES = ['gateway', 'content', 'segment', 'profile', 'ingestion'];

// The floors of a service library (and of each module in it), lowest first. A floor imports nothing of
// the floors above it: the domain stands alone, application holds the use cases and their ports,
// data-access implements those ports, api drives the application. Specs assemble floors, so they are free.
const FLOORS = ['domain', 'application', 'data-access', 'api'];
const SERVICE_SOURCES = `libs/{${SERVICE_SCOPES.join(',')}}/src`;
const SPECS = ['**/*.spec.ts', '**/*.*-spec.ts', '**/*.spec-cases.ts'];

/** no-restricted-imports refusing relative imports that reach into any of `floors`. */
function refuseFloors(floors) {
  const regex = `^\\.{1,2}/(.*/)?(${floors.join('|')})(/|$)`;
  return ['error', { patterns: [{ regex, message: `A floor of a service imports only the floors below it (${FLOORS.join(' < ')}).` }] }];
}

const floorRules = FLOORS.slice(0, -1).map((floor, index) => ({
  files: [`${SERVICE_SOURCES}/**/${floor}/**/*.ts`],
  ignores: SPECS,
  rules: { 'no-restricted-imports': refuseFloors(FLOORS.slice(index + 1)) },
}));

// Application code that still takes its repositories rather than ports: refused only the api floor
// until each moves behind ports of its own (as the gateway's AccountAdministration did). Add none.
const APPLICATION_ON_REPOSITORIES = [
  'libs/content/src/application/{experience-catalog.service,flow-catalog.service,ingestion-filtering-rules.service}.ts',
  'libs/content/src/application/{studio-document-catalog.service,tag-catalog.service,transactional-writes}.ts',
  'libs/ingestion/src/filtering/application/filtering-rules.service.ts',
  'libs/ingestion/src/imports/application/{import-batch-writer,import-worker.service}.ts',
  'libs/ingestion/src/jobs/application/{job-metrics,job-registry.service}.ts',
  'libs/profile/src/application/{group-association.service,intake-filter,profile-deletion.service}.ts',
  'libs/profile/src/application/{profile-imports.service,profiles.service,user-profile-directory.service}.ts',
  'libs/segment/src/application/{membership-change.service,membership-export.service,segments.service}.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.nx/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Nest resolves providers by their runtime class, so decorated constructor parameters must stay value imports.
      '@typescript-eslint/consistent-type-imports': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          banTransitiveDependencies: false,
          allow: [],
          depConstraints: [
            // Layers.
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            // The end-to-end suite is black-box: it may share public contracts, never service or platform code.
            // The distributed specs also use the suite launcher (tools/suite) to start and kill processes.
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:tool'] },
            // The medium specs of test/medium (their global set-up, every service's migrations) use the
            // services' public entry points and the platform, as the hosts do.
            { sourceTag: 'type:medium', onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:contracts'] },
            // Tools (tools/*: the suite launcher) are self-contained: node_modules only.
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: [] },
            // The docs tool (tools/docs) reads what it documents: the configuration schema, the contracts.
            { sourceTag: 'type:docs', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:contracts'],
            },
            // Scopes: a service host may only carry its own service; the standalone host carries all.
            ...SERVICE_SCOPES.map((scope) => ({
              sourceTag: `scope:${scope}`,
              onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
            })),
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared'] },
            {
              sourceTag: 'scope:standalone',
              onlyDependOnLibsWithTags: ['scope:shared', ...SERVICE_SCOPES.map((s) => `scope:${s}`)],
            },
          ],
        },
      ],
    },
  },
  ...floorRules,
  { files: APPLICATION_ON_REPOSITORIES, rules: { 'no-restricted-imports': refuseFloors(['api']) } },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
