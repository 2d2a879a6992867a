import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { configurationTable, withConfigurationTable } from './configuration-table';

/**
 * `npm run docs`: writes the README's configuration table from the configuration schema. Run from the
 * repository root after changing a variable, and commit README.md (a unit spec fails while it is stale).
 */
function main(): void {
  if (!existsSync('README.md') || !existsSync('nx.json')) throw new Error('run from the repository root');
  const readme = readFileSync('README.md', 'utf8');
  const updated = withConfigurationTable(readme, configurationTable());
  writeFileSync('README.md', updated);
  console.log(updated === readme ? 'README.md: configuration table already up to date' : 'README.md: configuration table written');
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
