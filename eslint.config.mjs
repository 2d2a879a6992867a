// Lint is architecture: the module-boundary rule below is what keeps services out of each other's
// internals. Scopes say who may use whom; types say which layer may depend on which.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const SERVICE_SCOPES = ['gateway', 'content', 'segment', 'profile', 'ingestion'];

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
