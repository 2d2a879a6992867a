import { NOT_PROBES, ROLE } from './panels';

/** Where the runbook entries are: one heading per alert in this page, its anchor the alert's name in lower case. */
export const RUNBOOK_PAGE = 'docs/deployment.md';

export interface AlertDefinition {
  /** Also the heading of its runbook entry. */
  readonly alert: string;
  readonly expr: string;
  /** How long the condition must hold before the alert fires (a Prometheus duration). */
  readonly for: string;
  /** critical: wake someone now; warning: look within the working day. */
  readonly severity: 'critical' | 'warning';
  /** One line for the notification, with `{{ $labels.x }}` and `{{ $value }}` templates. */
  readonly summary: string;
}

const REQUESTS = 'guidepost_http_request_duration_seconds';
/** The routes the latency objective holds for: not the probes, and not bulk uploads, which take as long as their file. */
const OBJECTIVE_ROUTES = 'route!~"/health/.*|/metrics|.*/import/.*"';
/** The latency objective: 99% of requests answered within this many seconds (a bucket bound of the HTTP histogram). */
const OBJECTIVE_SECONDS = '1';
const ANALYTICS_QUERIES = 'guidepost_analytics_queries_total';
const LAG_PER_GROUP = 'sum by (group) (max by (group, topic, partition) (guidepost_bus_consumer_lag))';

export const ALERTS: readonly AlertDefinition[] = [
  {
    alert: 'GuidepostTargetDown',
    expr: `up{${ROLE}!=""} == 0`,
    for: '5m',
    severity: 'critical',
    summary: 'Prometheus cannot scrape the {{ $labels.guidepost_role }} process {{ $labels.instance }}',
  },
  {
    alert: 'GuidepostNotReady',
    expr: 'guidepost_ready == 0',
    for: '5m',
    severity: 'critical',
    summary: 'The {{ $labels.guidepost_role }} process {{ $labels.instance }} has not been ready for 5 minutes',
  },
  {
    alert: 'GuidepostHighErrorRatio',
    expr: `sum by (${ROLE}) (rate(${REQUESTS}_count{status_code=~"5..",${NOT_PROBES}}[5m])) / sum by (${ROLE}) (rate(${REQUESTS}_count{${NOT_PROBES}}[5m])) > 0.05`,
    for: '10m',
    severity: 'critical',
    summary: '{{ $value | humanizePercentage }} of the requests to {{ $labels.guidepost_role }} fail with a 5xx',
  },
  {
    alert: 'GuidepostLatencyObjective',
    expr: `(sum by (${ROLE}) (rate(${REQUESTS}_count{${OBJECTIVE_ROUTES}}[5m])) - sum by (${ROLE}) (rate(${REQUESTS}_bucket{le="${OBJECTIVE_SECONDS}",${OBJECTIVE_ROUTES}}[5m]))) / sum by (${ROLE}) (rate(${REQUESTS}_count{${OBJECTIVE_ROUTES}}[5m])) > 0.01`,
    for: '15m',
    severity: 'warning',
    summary: '{{ $value | humanizePercentage }} of the requests to {{ $labels.guidepost_role }} take longer than 1 s (objective: 1%)',
  },
  {
    alert: 'GuidepostConsumerLagGrowing',
    expr: `${LAG_PER_GROUP} > 1000 and sum by (group) (max by (group, topic, partition) (delta(guidepost_bus_consumer_lag[10m]))) > 0`,
    for: '10m',
    severity: 'warning',
    summary: 'Consumer group {{ $labels.group }} is {{ $value }} messages behind and falling further behind',
  },
  {
    // The lag gauge moves only when the group handles a batch: a group that hangs keeps its last lag, so a
    // lag that no consumption follows for half an hour is a stall (long enough for the longest import).
    alert: 'GuidepostConsumerStalled',
    expr: `${LAG_PER_GROUP} > 0 and sum by (group) (rate(guidepost_bus_messages_consumed_total[30m])) == 0`,
    for: '15m',
    severity: 'critical',
    summary: 'Consumer group {{ $labels.group }} has {{ $value }} messages to handle and has handled none for 45 minutes',
  },
  {
    alert: 'GuidepostConsumerWaiting',
    expr: 'max by (topic, group) (guidepost_bus_consumer_waiting) == 1',
    for: '10m',
    severity: 'warning',
    summary: 'Consumer group {{ $labels.group }} has been waiting for an unavailable dependency for 10 minutes',
  },
  {
    alert: 'GuidepostDeadLettersWaiting',
    expr: 'max by (service, topic, group) (guidepost_dead_letters_waiting) > 0',
    for: '1m',
    severity: 'warning',
    summary: '{{ $value }} dead letter(s) of {{ $labels.topic }} wait in the {{ $labels.service }} schema',
  },
  {
    alert: 'GuidepostOutboxBacklog',
    expr: 'max by (service) (guidepost_outbox_oldest_message_age_seconds) > 300',
    for: '5m',
    severity: 'critical',
    summary: 'The {{ $labels.service }} outbox has not published a message for {{ $value | humanizeDuration }}',
  },
  {
    alert: 'GuidepostEventStoreInsertsFailing',
    expr: 'sum(rate(guidepost_event_store_insert_failures_total[5m])) > 0',
    for: '10m',
    severity: 'critical',
    summary: 'Inserts into the event store keep failing: accepted events are not becoming readable',
  },
  {
    // A few queries past the budget are the busy moments it is meant for; a quarter of them for a quarter of
    // an hour means the store has too little CPU for analytics beside tracking (or the budget is too tight).
    // Of the queries that ran: those refused for the account's concurrency or their conditions never reached the store.
    alert: 'GuidepostAnalyticsOverTimeBudget',
    expr: `sum(rate(${ANALYTICS_QUERIES}{outcome="over_time_budget"}[15m])) / sum(rate(${ANALYTICS_QUERIES}{outcome!~"concurrency_limited|invalid"}[15m])) > 0.25`,
    for: '15m',
    severity: 'warning',
    summary:
      '{{ $value | humanizePercentage }} of the analytics queries that reached the event store ran out of their time budget (answered 503)',
  },
  {
    // A client whose key was revoked or mistyped fails a few times and stops, or is throttled at 10 failures per
    // 5 minutes per address; failures or throttled attempts kept up at this rate are someone trying keys or tokens.
    alert: 'GuidepostAuthenticationFailures',
    expr: 'sum by (credential) (rate(guidepost_auth_failures_total[5m])) > 0.5',
    for: '10m',
    severity: 'warning',
    summary:
      '{{ $value | humanize }} attempts per second with a wrong {{ $labels.credential }} (refused 401, or throttled 429) for 10 minutes',
  },
  {
    alert: 'GuidepostJobStuck',
    expr: 'max by (job) (guidepost_jobs_oldest_in_progress_age_seconds) > 3600',
    for: '10m',
    severity: 'warning',
    summary: 'The oldest {{ $labels.job }} job has been in progress for {{ $value | humanizeDuration }}',
  },
];

interface RulesFile {
  readonly groups: { readonly name: string; readonly rules: Record<string, unknown>[] }[];
}

/** The alerts as a Prometheus rules file (also the `spec` of the chart's PrometheusRule). */
export function rulesFile(): RulesFile {
  return {
    groups: [
      {
        name: 'guidepost',
        rules: ALERTS.map((rule) => ({
          alert: rule.alert,
          expr: rule.expr,
          for: rule.for,
          labels: { severity: rule.severity },
          annotations: { summary: rule.summary, runbook_url: `${RUNBOOK_PAGE}#${rule.alert.toLowerCase()}` },
        })),
      },
    ],
  };
}
