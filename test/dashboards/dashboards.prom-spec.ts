import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
// Relative paths, not the aliases, as the distributed specs reach the suite and the tools.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { DistributedSuite } from '../../tools/suite/src';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { metricNamesOf } from '../../tools/dashboards/src/promql';
import { startSuite, Tracker, eventsFile, metricTotal } from '../distributed/support';
import { admin, api, createAccount, eventually, type TestAccount } from '../e2e/support';
import { startMailServer, type TestMailServer } from '../e2e/support-mail';
import { ndjsonBody, startImport, userPath } from '../e2e/support-people';
import { completedJob, expectAccepted, useServer } from '../e2e/support-segments';
import { SCRAPE_INTERVAL_SECONDS, type Series, TestPrometheus } from './prometheus';

const CHART = resolve(__dirname, '../../helm/guidepost');
/** What Grafana puts for `$__rate_interval` at this scrape interval and step (at least four scrapes). */
const RATE_INTERVAL = '15s';
const STEP_SECONDS = 2;
/** The load lasts at least this long, so that every rate has windows full of samples, as on a dashboard. */
const MIN_LOAD_MS = 45_000;
/** The event name the account's filtering rules deny, so that the filtered-events series exist. */
const DENIED_EVENT = 'noise';
const IMPORTED_ROWS = 5_000;
/** How often the load asks an analytics query (the top events), for the analytics panels. */
const ANALYTICS_INTERVAL_MS = 2_000;

interface PanelQuery {
  readonly dashboard: string;
  readonly panel: string;
  readonly exprs: string[];
}

/** Every panel of every dashboard the chart ships, with the PromQL of each of its targets. */
function panelQueries(): PanelQuery[] {
  return readdirSync(join(CHART, 'dashboards')).flatMap((file) => {
    const dashboard = JSON.parse(readFileSync(join(CHART, 'dashboards', file), 'utf8')) as {
      title: string;
      panels: { title: string; targets: { expr: string }[] }[];
    };
    return dashboard.panels.map((panel) => ({
      dashboard: dashboard.title,
      panel: panel.title,
      exprs: panel.targets.map((target) => target.expr),
    }));
  });
}

/** Every alert the chart ships, with its expression. */
function alertRules(): { alert: string; expr: string }[] {
  const rules = JSON.parse(readFileSync(join(CHART, 'alerts', 'guidepost.rules.json'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((group) => group.rules);
}

const hasData = (series: readonly Series[]): boolean =>
  series.some((one) => one.values.some(([, value]) => Number.isFinite(Number(value))));

/**
 * The dashboards and alerts proven on real metrics: a real Prometheus scrapes every process of a
 * distributed suite while it takes tracks (some filtered, some refused with a 4xx), an events import,
 * an export whose notification mail the mail server refuses for good (a dead letter) and analytics
 * queries. Then every panel's query runs over the load as Grafana runs it, and every alert's
 * expression as the rule evaluator does: each panel returns data, and every metric a query names was scraped.
 */
describe('the dashboards and alerts on a real Prometheus scraping the distributed suite', () => {
  let mail: TestMailServer;
  let suite: DistributedSuite | undefined;
  let prometheus: TestPrometheus | undefined;
  let pointBack: (() => void) | undefined;
  let loadStart = 0;
  let loadEnd = 0;
  let scrapedNames = new Set<string>();

  beforeAll(async () => {
    mail = await startMailServer();
    suite = await startSuite({ env: { GUIDEPOST_SMTP_URL: mail.url, GUIDEPOST_RATE_LIMIT_PER_SECOND: '100000' } });
    pointBack = useServer({ baseUrl: suite.gatewayUrl, adminToken: suite.adminToken });
    const running = suite;
    prometheus = await TestPrometheus.start(
      running.processNames.map((name) => ({ address: new URL(running.process(name).url).host, role: name.replace(/-\d+$/, '') })),
    );
    loadStart = Math.floor(Date.now() / 1000);
    await driveLoad(running, await createAccount());
    // A rate interval more, so that the last of the load is in Prometheus and in the rates' windows.
    await delay(2 * Number.parseInt(RATE_INTERVAL, 10) * 1000 + 2 * SCRAPE_INTERVAL_SECONDS * 1000);
    loadEnd = Math.ceil(Date.now() / 1000);
    scrapedNames = new Set(await prometheus.metricNames());
  }, 600_000);

  afterAll(async () => {
    await prometheus?.stop();
    pointBack?.();
    await suite?.stop();
    await mail?.close();
  }, 120_000);

  it('scrapes every process of the suite', async () => {
    const targets = await prometheus!.targets();
    expect(targets.map((target) => `${target.labels['guidepost_role']} ${target.health} ${target.lastError}`).sort()).toEqual(
      suite!.processNames.map((name) => `${name.replace(/-\d+$/, '')} up `).sort(),
    );
  });

  it.each(panelQueries().map((query) => [`${query.dashboard}: ${query.panel}`, query] as const))(
    '%s returns data and reads only scraped metrics',
    async (_, { exprs }) => {
      for (const expr of exprs) {
        const series = await prometheus!.queryRange(expr.replaceAll('$__rate_interval', RATE_INTERVAL), loadStart, loadEnd, STEP_SECONDS);
        expect({ expr, hasData: hasData(series) }).toEqual({ expr, hasData: true });
        expect({ expr, missing: metricNamesOf(expr).filter((name) => !scrapedNames.has(name)) }).toEqual({ expr, missing: [] });
      }
    },
  );

  it.each(alertRules().map((rule) => [rule.alert, rule] as const))(
    'the expression of %s runs and reads only scraped metrics',
    async (_, { expr }) => {
      // No alert should fire on a healthy suite under a short load, but the expression must be valid and its series real.
      await expect(prometheus!.query(expr, loadEnd)).resolves.toEqual(expect.any(Array));
      expect(metricNamesOf(expr).filter((name) => !scrapedNames.has(name))).toEqual([]);
    },
  );
});

/** The analytics panels' requests: the top events, asked the way a client asks for them. */
async function topEvents(account: TestAccount): Promise<void> {
  const query = {
    metrics: ['events', 'users'],
    dimensions: ['name'],
    // The last 30 days: a query's window spans at most 90.
    start_time: new Date(Date.now() - 30 * 24 * 3_600_000).toISOString(),
    end_time: new Date().toISOString(),
    limit: 10,
  };
  expect((await api(account, 'POST', '/analytics/query', { json: query })).status).toBe(200);
}

/** Tracks, filtered tracks, refused requests, an events import, an export whose mail is refused (a dead letter) and analytics queries. */
async function driveLoad(suite: DistributedSuite, account: TestAccount): Promise<void> {
  const loadStartedAt = Date.now();
  const ingestion = suite.process('ingestion-0').url;
  const rules = await admin('PUT', `/admin/v1/accounts/${account.id}/ingestion_filtering_rules`, {
    mode: 'deny',
    event_names: [DENIED_EVENT],
  });
  expect(rules.status).toBe(200);

  const tracker = new Tracker(account);
  const tracking = tracker.run(2);
  let loading = true;
  // All through the load, not a few at one moment: the first scrapes may come seconds after the load
  // starts, and a latency quantile needs its buckets to grow between two scrapes.
  const asking = (async () => {
    while (loading) {
      await topEvents(account);
      await delay(ANALYTICS_INTERVAL_MS);
    }
  })();
  // Its failure is reported where it is awaited, below; meanwhile it is not an unhandled rejection.
  asking.catch(() => undefined);
  try {
    // Client mistakes, for the 4xx series: a route that does not exist and a body that is not JSON.
    expect((await api(account, 'GET', '/no-such-resource')).status).toBe(404);
    expect(
      (await api(account, 'POST', userPath('u1', 'events'), { body: '{', headers: { 'Content-Type': 'application/json' } })).status,
    ).toBe(400);
    // The rules reach the ingestion service's copy over Kafka: track the denied name until it is dropped.
    await eventually(
      async () => {
        const denied = await api(account, 'POST', userPath('u1', 'events'), {
          json: { name: DENIED_EVENT, timestamp: new Date().toISOString() },
        });
        expect(denied.status).toBe(200);
        expect(await metricTotal(ingestion, 'guidepost_ingestion_filtered_total')).toBeGreaterThan(0);
      },
      60_000,
      1_000,
    );

    const imported = await startImport(account, 'events', ndjsonBody(eventsFile(IMPORTED_ROWS)));
    await completedJob(account, imported, 180_000);
    const exported = await expectAccepted(
      account,
      await api(account, 'POST', '/export/events', {
        json: { format: 'csv', conditions: [], start_time: '2024-01-01T00:00:00Z', email: 'ops@refusing.example' },
      }),
    );
    await completedJob(account, exported, 180_000);
    // Tracks go on until the load has lasted long enough for the rates.
    await delay(Math.max(0, loadStartedAt + MIN_LOAD_MS - Date.now()));
  } finally {
    loading = false;
    tracker.stop();
    await Promise.all([tracking, asking]);
  }
  expect(tracker.acknowledged.length).toBeGreaterThan(0);
  // The mail sender gives the refused notification up: a dead letter waits in the ingestion schema.
  await eventually(async () => expect(await metricTotal(ingestion, 'guidepost_dead_letters_waiting')).toBeGreaterThan(0), 120_000, 1_000);
}
