// @ts-check
// An Nx plugin (JavaScript: Nx loads a local TypeScript plugin only through ts-node or @swc-node, which
// the workspace does not carry). It gives every project whose own folder holds unit specs (`*.spec.ts`)
// or middle-tier specs (`*.medium-spec.ts`) a `test` target that runs only those, so that
// `npx nx test content` takes seconds and `npx nx affected -t test` runs the tests of what a change
// touches and of what depends on it. `npm test` still runs every tier through jest.config.js.
const { readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** The Jest projects of jest.config.js that run per Nx project, by how their spec files end. */
const TIERS = [
  { jestProject: 'unit', suffix: '.spec.ts' },
  { jestProject: 'medium', suffix: '.medium-spec.ts' },
];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.nx', 'coverage']);

/** @type {import('nx/src/devkit-exports').CreateNodesV2} */
exports.createNodesV2 = [
  '**/project.json',
  (projectFiles, _options, context) => {
    const roots = projectFiles.map((file) => dirname(file));
    return projectFiles.map((file) => {
      const root = dirname(file);
      const tiers = tiersIn(context.workspaceRoot, root, new Set(roots.filter((other) => other !== root)));
      if (tiers.length === 0) return [file, {}];
      return [file, { projects: { [root]: { targets: { test: testTarget(context.workspaceRoot, root, tiers) } } } }];
    });
  },
];

/**
 * The Jest projects whose specs this Nx project holds, told by their suffix; the folders of nested
 * Nx projects are theirs, not this one's.
 * @param {string} workspaceRoot
 * @param {string} root
 * @param {Set<string>} otherRoots
 * @returns {string[]}
 */
function tiersIn(workspaceRoot, root, otherRoots) {
  const found = new Set();
  const pending = [root];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    for (const entry of readdirSync(join(workspaceRoot, folder), { withFileTypes: true })) {
      const path = folder === '.' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !otherRoots.has(path)) pending.push(path);
        continue;
      }
      // `x.medium-spec.ts` does not end in `.spec.ts`, nor do the other tiers' `-spec.ts` files.
      const tier = TIERS.find(({ suffix }) => entry.name.endsWith(suffix));
      if (tier) found.add(tier.jestProject);
    }
  }
  return TIERS.map((tier) => tier.jestProject).filter((jestProject) => found.has(jestProject));
}

/**
 * @param {string} workspaceRoot
 * @param {string} root
 * @param {string[]} jestProjects
 */
function testTarget(workspaceRoot, root, jestProjects) {
  const folder = `${workspaceRoot}/${root}/`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    command: `jest --selectProjects ${jestProjects.join(' ')} --testPathPatterns '^${folder}'`,
    options: { cwd: '{workspaceRoot}' },
    // Run, never replayed from Nx's cache: some specs read files outside their project (tools/docs
    // checks the README and docs/), which a cache keyed on the project's inputs would not notice.
    cache: false,
    metadata: { description: `The ${jestProjects.join(' and ')} specs of ${root} (jest.config.js projects ${jestProjects.join(', ')})` },
  };
}
