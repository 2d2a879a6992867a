// Maps the workspace's TypeScript path aliases (tsconfig.base.json) to Jest module paths, so tests
// import libraries exactly as production code does.
const path = require('node:path');
const { compilerOptions } = require('../../tsconfig.base.json');

function pathsToModuleNameMapper() {
  const root = path.resolve(__dirname, '../..');
  return Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
      `^${alias.replace(/[-/]/g, (c) => `\\${c}`)}$`,
      path.join(root, target),
    ]),
  );
}

module.exports = { pathsToModuleNameMapper };
