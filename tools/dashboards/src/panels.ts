import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

/** Every panel queries the Prometheus data source the viewer picks (the dashboard's `datasource` variable). */
const DATASOURCE: dashboard.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/**
 * The label every Guidepost target carries: its role (gateway, content, segment, profile, ingestion).
 * The chart's ServiceMonitor sets it from the Service's `app.kubernetes.io/component`; any other
 * scrape configuration must set it too (see docs/deployment.md, "Monitoring").
 */
export const ROLE = 'guidepost_role';

/** Health probes and scrapes are not traffic: the request panels and alerts leave them out. */
export const NOT_PROBES = 'route!~"/health/.*|/metrics"';

export interface Query {
  readonly expr: string;
  /** Grafana's legend template, `{{label}}` for label values. */
  readonly legend: string;
}

export interface PanelDefinition {
  readonly title: string;
  /** What the panel shows and what to look for, shown as the panel's tooltip. */
  readonly description: string;
  /** A Grafana unit id: `reqps`, `s`, `percentunit`, `short`, `bytes`, `ops`, ... */
  readonly unit: string;
  readonly queries: readonly Query[];
}

export interface DashboardDefinition {
  /** Stable, so links and the sidecar's updates find the dashboard again. */
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly panels: readonly PanelDefinition[];
}

const PANEL_HEIGHT = 8;
const PANEL_WIDTH = 12;

/** The dashboard's JSON model, as Grafana (and its sidecar) loads it. */
export function buildDashboard(definition: DashboardDefinition): dashboard.Dashboard {
  const builder = new dashboard.DashboardBuilder(definition.title)
    .uid(definition.uid)
    .description(definition.description)
    .tags(['guidepost'])
    .editable()
    .refresh('30s')
    .time({ from: 'now-1h', to: 'now' })
    .timezone('browser')
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .withVariable(new dashboard.DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'));
  definition.panels.forEach((panel, index) => builder.withPanel(timeSeriesPanel(panel, index + 1)));
  return builder.build();
}

function timeSeriesPanel(definition: PanelDefinition, id: number): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder()
    .id(id)
    .title(definition.title)
    .description(definition.description)
    .datasource(DATASOURCE)
    .unit(definition.unit)
    .height(PANEL_HEIGHT)
    .span(PANEL_WIDTH)
    .fillOpacity(10)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    );
  definition.queries.forEach((query, index) =>
    panel.withTarget(
      new prometheus.DataqueryBuilder()
        .refId(String.fromCharCode('A'.charCodeAt(0) + index))
        .datasource(DATASOURCE)
        .expr(query.expr)
        .legendFormat(query.legend)
        .range(),
    ),
  );
  return panel;
}

/** `histogram_quantile` of a histogram's buckets over the rate interval, grouped by `by` (plus `le`). */
export function quantile(q: number, bucket: string, by: readonly string[] = [], selector = ''): string {
  return `histogram_quantile(${q}, sum by (${[...by, 'le'].join(', ')}) (rate(${bucket}${selector ? `{${selector}}` : ''}[$__rate_interval])))`;
}
