import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ALERTS, RUNBOOK_PAGE } from './alerts';
import { CHART_DIR, generatedFiles } from './generate';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

interface Panel {
  readonly title: string;
  readonly datasource: { readonly uid: string };
  readonly targets?: { readonly expr: string; readonly refId: string }[];
}

describe('the generated dashboards and alert rules', () => {
  const files = generatedFiles();

  it.each([...files.keys()])('%s is committed as generated (run `npm run dashboards` and commit the result)', (path) => {
    expect(readFileSync(join(REPO_ROOT, path), 'utf8')).toBe(files.get(path));
  });

  it('leaves no dashboard in the chart that the code no longer makes', () => {
    const committed = readdirSync(join(REPO_ROOT, CHART_DIR, 'dashboards')).map((name) => `${CHART_DIR}/dashboards/${name}`);
    expect(committed.sort()).toEqual([...files.keys()].filter((path) => path.includes('/dashboards/')).sort());
  });

  it('gives every dashboard its own uid, and every panel a Prometheus query on the chosen data source', () => {
    const dashboards = [...files]
      .filter(([path]) => path.includes('/dashboards/'))
      .map(([, text]) => JSON.parse(text) as { uid: string; panels: Panel[] });
    expect(new Set(dashboards.map((dashboard) => dashboard.uid)).size).toBe(dashboards.length);
    for (const panel of dashboards.flatMap((dashboard) => dashboard.panels)) {
      expect(panel.datasource.uid).toBe('${datasource}');
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.expr).toMatch(/\S/);
    }
  });

  it('points every alert at its own runbook entry, a heading of docs/deployment.md', () => {
    const headings = readFileSync(join(REPO_ROOT, RUNBOOK_PAGE), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) => line.replace(/^#+\s*/, '').trim());
    for (const alert of ALERTS) expect(headings).toContain(alert.alert);
    const rules = JSON.parse(files.get(`${CHART_DIR}/alerts/guidepost.rules.json`)!) as {
      groups: { rules: { annotations: { runbook_url: string } }[] }[];
    };
    const urls = rules.groups.flatMap((group) => group.rules.map((rule) => rule.annotations.runbook_url));
    expect(urls).toEqual(ALERTS.map((alert) => `docs/deployment.md#${alert.alert.toLowerCase()}`));
  });
});
