import { rulesFile } from './alerts';
import { DASHBOARDS } from './dashboards';
import { buildDashboard } from './panels';

/** Where the generated files go, relative to the repository root: the chart ships them. */
export const CHART_DIR = 'helm/guidepost';

/** Every generated file of the chart (path from the repository root → content). */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, definition] of Object.entries(DASHBOARDS)) {
    files.set(`${CHART_DIR}/dashboards/${name}.json`, `${JSON.stringify(buildDashboard(definition), null, 2)}\n`);
  }
  files.set(`${CHART_DIR}/alerts/guidepost.rules.json`, `${JSON.stringify(rulesFile(), null, 2)}\n`);
  return files;
}
