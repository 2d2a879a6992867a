import { type DashboardDefinition, NOT_PROBES, quantile, ROLE } from './panels';

const REQUESTS = 'guidepost_http_request_duration_seconds';
/** The analytics routes, as every process that answers them labels them (the gateway and the ingestion service). */
const ANALYTICS_ROUTES = 'route=~".*/analytics/.*"';
/** The lag of each partition once, whichever replica of the group reported it last. */
const LAG_PER_PARTITION = 'max by (group, topic, partition) (guidepost_bus_consumer_lag)';

const overview: DashboardDefinition = {
  uid: 'guidepost-overview',
  title: 'Guidepost / Overview',
  description:
    'Requests (rate, errors, latency) per service and route, the event pipeline from intake to the event store, and how long events take to become readable',
  panels: [
    {
      title: 'Requests per second by service and route',
      description: 'Every HTTP request a process answered (health probes and scrapes left out), by route pattern.',
      unit: 'reqps',
      queries: [
        { expr: `sum by (${ROLE}, route) (rate(${REQUESTS}_count{${NOT_PROBES}}[$__rate_interval]))`, legend: `{{${ROLE}}} {{route}}` },
      ],
    },
    {
      title: 'Server errors (5xx) ratio by service',
      description: 'The share of requests answered 5xx. The GuidepostHighErrorRatio alert fires above 5% for 10 minutes.',
      unit: 'percentunit',
      queries: [
        {
          // The `or ... * 0` keeps a 0 line for a service without any 5xx (the 5xx series do not exist then).
          expr: `(sum by (${ROLE}) (rate(${REQUESTS}_count{status_code=~"5..",${NOT_PROBES}}[$__rate_interval])) or sum by (${ROLE}) (rate(${REQUESTS}_count{${NOT_PROBES}}[$__rate_interval])) * 0) / sum by (${ROLE}) (rate(${REQUESTS}_count{${NOT_PROBES}}[$__rate_interval]))`,
          legend: `{{${ROLE}}}`,
        },
      ],
    },
    {
      title: 'Client and server errors by service, route and status',
      description:
        "4xx and 5xx answers per second. 4xx are the clients' mistakes (401, 404, 413, 429 ...); a burst of 429 means an account hit its budget.",
      unit: 'reqps',
      queries: [
        {
          expr: `sum by (${ROLE}, route, status_code) (rate(${REQUESTS}_count{status_code=~"4..|5..",${NOT_PROBES}}[$__rate_interval]))`,
          legend: `{{${ROLE}}} {{route}} {{status_code}}`,
        },
      ],
    },
    {
      title: 'Gateway connections refused by a service and tried again, per second',
      description:
        'The gateway tries a refused connection to a service again (four times over 1.5 s) before answering 503. A short burst during a rolling update is the routing catching up with the new pods; a steady rate means a service that is down or a service URL that points nowhere.',
      unit: 'ops',
      queries: [
        { expr: 'sum by (service) (rate(guidepost_gateway_upstream_connect_retries_total[$__rate_interval]))', legend: '{{service}}' },
      ],
    },
    {
      title: 'Latency by service (p50, p95, p99)',
      description:
        'Request duration quantiles per service. The GuidepostLatencyObjective alert fires when more than 1% of requests take over 1 s.',
      unit: 's',
      queries: [0.5, 0.95, 0.99].map((q) => ({
        expr: quantile(q, `${REQUESTS}_bucket`, [ROLE], NOT_PROBES),
        legend: `{{${ROLE}}} p${q * 100}`,
      })),
    },
    {
      title: 'Latency p95 by route',
      description: 'The 95th percentile of request duration per service and route: which endpoint is slow.',
      unit: 's',
      queries: [{ expr: quantile(0.95, `${REQUESTS}_bucket`, [ROLE, 'route'], NOT_PROBES), legend: `{{${ROLE}}} {{route}}` }],
    },
    {
      title: 'Events accepted, stored and filtered per second',
      description:
        'Accepted: committed by the track API or an import. Stored: written to the event store by the sink. Filtered: dropped by the ingestion filtering rules. Stored follows accepted; a widening gap is a backlog (see the Ingestion dashboard).',
      unit: 'ops',
      queries: [
        { expr: 'sum by (intake) (rate(guidepost_events_accepted_total[$__rate_interval]))', legend: 'accepted ({{intake}})' },
        { expr: 'sum(rate(guidepost_event_store_events_written_total[$__rate_interval]))', legend: 'stored' },
        {
          expr: 'sum by (intake) (rate(guidepost_ingestion_filtered_total{kind="event"}[$__rate_interval]))',
          legend: 'filtered ({{intake}})',
        },
      ],
    },
    {
      title: 'Capture to queryable (p50, p95, p99)',
      description: 'From when the service received an event (tracked, or its import staged) to the insert that made it readable.',
      unit: 's',
      queries: [0.5, 0.95, 0.99].map((q) => ({
        expr: quantile(q, 'guidepost_event_capture_to_queryable_seconds_bucket'),
        legend: `p${q * 100}`,
      })),
    },
    {
      title: 'Processes ready',
      description:
        'Per process: 1 when its last readiness check passed, 0 when it failed. A scrape target that is down (up = 0) shows as a gap.',
      unit: 'short',
      queries: [{ expr: `max by (${ROLE}, instance) (guidepost_ready)`, legend: '{{instance}}' }],
    },
  ],
};

const ingestion: DashboardDefinition = {
  uid: 'guidepost-ingestion',
  title: 'Guidepost / Ingestion',
  description:
    'The Kafka bus (lag per group and partition, throughput), the event sink (batch sizes, insert latency), the outbox backlog and dead letters',
  panels: [
    {
      title: 'Consumer lag by group and partition',
      description:
        'Messages of a partition the group has not handled yet, as of its latest batch. The ingestion service scales out on this lag (KEDA).',
      unit: 'short',
      queries: [{ expr: LAG_PER_PARTITION, legend: '{{group}} {{topic}}[{{partition}}]' }],
    },
    {
      title: 'Consumer lag by group',
      description:
        'The lag of every partition of a group, summed. The GuidepostConsumerLagGrowing alert fires when it stays above 1,000 and grows for 10 minutes.',
      unit: 'short',
      queries: [{ expr: `sum by (group) (${LAG_PER_PARTITION})`, legend: '{{group}}' }],
    },
    {
      title: 'Messages published and consumed per second',
      description: 'Published: acknowledged by the broker, per topic. Consumed: handled and committed, per group.',
      unit: 'ops',
      queries: [
        { expr: 'sum by (topic) (rate(guidepost_bus_messages_published_total[$__rate_interval]))', legend: 'published {{topic}}' },
        { expr: 'sum by (group) (rate(guidepost_bus_messages_consumed_total[$__rate_interval]))', legend: 'consumed {{group}}' },
      ],
    },
    {
      title: 'Handler duration p95 by group',
      description: 'How long one handler run takes (one message, or one batch for batch consumers such as the event sink).',
      unit: 's',
      queries: [{ expr: quantile(0.95, 'guidepost_bus_handle_duration_seconds_bucket', ['group']), legend: '{{group}}' }],
    },
    {
      title: 'Event sink batch size',
      description:
        'Events per insert into the event store: the sink gathers concurrent batches; few large inserts are what ClickHouse wants.',
      unit: 'short',
      queries: [
        {
          expr: 'sum(rate(guidepost_event_store_insert_rows_sum[$__rate_interval])) / sum(rate(guidepost_event_store_insert_rows_count[$__rate_interval]))',
          legend: 'mean',
        },
        { expr: quantile(0.95, 'guidepost_event_store_insert_rows_bucket'), legend: 'p95' },
      ],
    },
    {
      title: 'Event store insert latency (p50, p95) and failures',
      description: 'Duration of a successful insert, and inserts per second that failed (their batches are delivered again).',
      unit: 's',
      queries: [
        ...[0.5, 0.95].map((q) => ({ expr: quantile(q, 'guidepost_event_store_insert_duration_seconds_bucket'), legend: `p${q * 100}` })),
        { expr: 'sum(rate(guidepost_event_store_insert_failures_total[$__rate_interval]))', legend: 'failed inserts per second' },
      ],
    },
    {
      title: 'Outbox backlog by service',
      description:
        'Messages written with a state change but not yet published to Kafka, and how long the oldest has waited (GuidepostOutboxBacklog fires past 5 minutes).',
      unit: 'short',
      queries: [
        { expr: 'max by (service) (guidepost_outbox_backlog_messages)', legend: '{{service}} messages' },
        { expr: 'max by (service) (guidepost_outbox_oldest_message_age_seconds)', legend: '{{service}} oldest (s)' },
      ],
    },
    {
      title: 'Dead letters waiting, and dead-lettered per second',
      description:
        'Messages given up on, waiting for an operator in /admin/v1/dead-letters/<service> (GuidepostDeadLettersWaiting). The rate is per consumer group; 0 lines are drawn for the groups without any.',
      unit: 'short',
      queries: [
        { expr: 'max by (service, topic, group) (guidepost_dead_letters_waiting)', legend: 'waiting {{service}} {{group}} {{topic}}' },
        {
          expr: 'sum by (group) (rate(guidepost_bus_dead_letters_total[$__rate_interval])) or sum by (group) (rate(guidepost_bus_messages_consumed_total[$__rate_interval])) * 0',
          legend: 'dead-lettered {{group}}',
        },
      ],
    },
    {
      title: 'Handler failures and consumers waiting',
      description:
        'Handler runs that threw, by group and failure class (each retry counts), and groups holding a message back while a dependency is down.',
      unit: 'short',
      queries: [
        {
          expr: 'sum by (group, class) (rate(guidepost_bus_handler_failures_total[$__rate_interval])) or sum by (group) (rate(guidepost_bus_messages_consumed_total[$__rate_interval])) * 0',
          legend: 'failures {{group}} {{class}}',
        },
        { expr: 'max by (topic, group) (guidepost_bus_consumer_waiting)', legend: 'waiting {{group}}' },
      ],
    },
    {
      title: 'Messaging rows pruned per second by service and table',
      description:
        'Outbox messages, handled message ids and replayed dead letters deleted once past the deduplication window; flat at zero for a day while messages flow means the prune fails (logged as a warning).',
      unit: 'short',
      queries: [
        {
          expr: 'sum by (service, table) (rate(guidepost_messaging_rows_pruned_total[$__rate_interval]))',
          legend: '{{service}} {{table}}',
        },
      ],
    },
    {
      title: 'Analytics requests per second by service, route and status',
      description:
        'Analytics queries and analytics exports, by the process that answered them (the gateway, then the ingestion service); 429 means an account ran more queries at once than its concurrency limit.',
      unit: 'reqps',
      queries: [
        {
          expr: `sum by (${ROLE}, route, status_code) (rate(${REQUESTS}_count{${ANALYTICS_ROUTES}}[$__rate_interval]))`,
          legend: `{{${ROLE}}} {{route}} {{status_code}}`,
        },
      ],
    },
    {
      title: 'Analytics queries per second by outcome',
      description:
        "Synchronous analytics queries by how they ended (the ingestion service): over_time_budget (503) means the event store was too busy to answer within GUIDEPOST_ANALYTICS_MAX_EXECUTION_SECONDS, failed (503 or 500) that it could not be reached or failed; over_memory_budget and invalid (400) and concurrency_limited (429) are the clients' to change.",
      unit: 'reqps',
      queries: [{ expr: 'sum by (outcome) (rate(guidepost_analytics_queries_total[$__rate_interval]))', legend: '{{outcome}}' }],
    },
    {
      title: 'Analytics latency (p50, p95) by service and route',
      description:
        'Time to answer an analytics query (bounded by GUIDEPOST_ANALYTICS_MAX_EXECUTION_SECONDS) or to accept an analytics export.',
      unit: 's',
      queries: [
        { expr: quantile(0.5, `${REQUESTS}_bucket`, [ROLE, 'route'], ANALYTICS_ROUTES), legend: `p50 {{${ROLE}}} {{route}}` },
        { expr: quantile(0.95, `${REQUESTS}_bucket`, [ROLE, 'route'], ANALYTICS_ROUTES), legend: `p95 {{${ROLE}}} {{route}}` },
      ],
    },
  ],
};

const jobs: DashboardDefinition = {
  uid: 'guidepost-jobs',
  title: 'Guidepost / Jobs',
  description: 'Imports, exports and the other jobs of the job registry: how many run, how fast they go, how they end',
  panels: [
    {
      title: 'Jobs in progress by name',
      description: 'Jobs in progress now, from the job registry (every ingestion replica reports the same, hence max).',
      unit: 'short',
      queries: [{ expr: 'max by (job) (guidepost_jobs_in_progress)', legend: '{{job}}' }],
    },
    {
      title: 'Oldest job in progress',
      description: 'How long the oldest job of each name has run. GuidepostJobStuck fires past an hour.',
      unit: 's',
      queries: [{ expr: 'max by (job) (guidepost_jobs_oldest_in_progress_age_seconds)', legend: '{{job}}' }],
    },
    {
      title: 'Rows per second by job',
      description: 'Rows imports read and exports write, per job name.',
      unit: 'ops',
      queries: [{ expr: 'sum by (job) (rate(guidepost_job_rows_total[$__rate_interval]))', legend: '{{job}}' }],
    },
    {
      title: 'Jobs finished by outcome',
      description: 'Jobs that ended in the last hour, by name and status; FAILED ones carry their reason in the job detail.',
      unit: 'short',
      queries: [{ expr: 'sum by (job, status) (increase(guidepost_jobs_finished_total[1h]))', legend: '{{job}} {{status}}' }],
    },
  ],
};

const runtime: DashboardDefinition = {
  uid: 'guidepost-runtime',
  title: 'Guidepost / Runtime',
  description: 'Node.js of every process: event loop lag, heap, garbage collection, CPU and memory',
  panels: [
    {
      title: 'Event loop lag p99 by process',
      description: 'How late timers and I/O callbacks run. Sustained lag above 100 ms slows every request of the process.',
      unit: 's',
      queries: [{ expr: `max by (${ROLE}, instance) (nodejs_eventloop_lag_p99_seconds)`, legend: `{{${ROLE}}} {{instance}}` }],
    },
    {
      title: 'Heap used by process',
      description: 'V8 heap in use, and the heap size it may grow to.',
      unit: 'bytes',
      queries: [
        { expr: `sum by (${ROLE}, instance) (nodejs_heap_size_used_bytes)`, legend: `{{${ROLE}}} {{instance}} used` },
        { expr: `sum by (${ROLE}, instance) (nodejs_heap_size_total_bytes)`, legend: `{{${ROLE}}} {{instance}} total` },
      ],
    },
    {
      title: 'Garbage collection time by process and kind',
      description: 'Seconds per second spent in GC, by kind (major, minor, incremental, weakcb).',
      unit: 'percentunit',
      queries: [
        {
          expr: `sum by (${ROLE}, instance, kind) (rate(nodejs_gc_duration_seconds_sum[$__rate_interval]))`,
          legend: `{{${ROLE}}} {{instance}} {{kind}}`,
        },
      ],
    },
    {
      title: 'CPU and resident memory by process',
      description: 'CPU seconds per second (1 = one core) and resident memory of each process.',
      unit: 'short',
      queries: [
        { expr: `sum by (${ROLE}, instance) (rate(process_cpu_seconds_total[$__rate_interval]))`, legend: `{{${ROLE}}} {{instance}} cpu` },
        { expr: `sum by (${ROLE}, instance) (process_resident_memory_bytes) / 1024 / 1024`, legend: `{{${ROLE}}} {{instance}} MiB` },
      ],
    },
  ],
};

/** The dashboards of the chart, by file name (without `.json`). */
export const DASHBOARDS: Readonly<Record<string, DashboardDefinition>> = { overview, ingestion, jobs, runtime };
