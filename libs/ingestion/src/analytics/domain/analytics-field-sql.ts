import type { AnalyticsPagePart } from '@guidepost/contracts-http';

/**
 * The SQL of the vocabulary's fields that read no attribute key of the request: stored columns, the
 * page and the kept context, each as text over the `events` table. Dimensions, columns and
 * conditions read them alike, so a condition compares the value a row shows.
 */

/** The event's page, `context.url` of the track API; `""` without one. */
const PAGE_URL = "ifNull(context_url, '')";

/** A part of the event's page URL, by ClickHouse's URL functions (which give `""` for what a URL lacks). */
export const PAGE_PART_SQL: Record<AnalyticsPagePart, string> = {
  url: PAGE_URL,
  hostname: `domain(${PAGE_URL})`,
  path: `path(${PAGE_URL})`,
  hash: `fragment(${PAGE_URL})`,
  query: `queryString(${PAGE_URL})`,
};

/** The event's kept context as JSON object text: `{"url":"..."}`, or `{}` for an event without a page. */
export const CONTEXT_JSON_SQL = `if(context_url IS NULL, '{}', concat('{"url":', toJSONString(context_url), '}'))`;
