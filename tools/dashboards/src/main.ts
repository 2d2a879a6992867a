import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHART_DIR, generatedFiles } from './generate';

/**
 * `npm run dashboards`: writes the Grafana dashboards and the alert rules into the chart
 * (helm/guidepost/dashboards/*.json, helm/guidepost/alerts/guidepost.rules.json). Run from the
 * repository root; commit what it writes (a unit spec fails while the committed files are stale).
 */
function main(): void {
  const root = process.cwd();
  if (!existsSync(join(root, CHART_DIR, 'Chart.yaml'))) throw new Error(`run from the repository root: no ${CHART_DIR}/Chart.yaml here`);
  for (const [path, content] of generatedFiles()) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    console.log(`wrote ${path}`);
  }
}

main();
