/** A route's path pattern as Fastify reads it, compiled, with the methods that serve it. */
interface KnownRoute {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
}

/**
 * The routes of one server by path pattern, recorded from Fastify's `onRoute` hook, so that a request
 * the router found no route for can be told apart: a path served under other methods is a 405 with
 * `Allow` (RFC 9110 §15.5.6), any other a 404. Fastify's router answers only "no route for this method
 * and path", so the patterns are matched here again, only on that path (never on a routed request).
 */
export class RouteTable {
  private readonly routes = new Map<string, KnownRoute>();

  add(methods: string | readonly string[], url: string): void {
    let route = this.routes.get(url);
    if (route === undefined) {
      route = { pattern: patternOf(url), methods: new Set() };
      this.routes.set(url, route);
    }
    for (const method of typeof methods === 'string' ? [methods] : methods) route.methods.add(method.toUpperCase());
  }

  /** The methods some route serves `path` (no query string) under, sorted; empty when none does. */
  allowedMethods(path: string): string[] {
    const allowed = new Set<string>();
    for (const route of this.routes.values()) {
      if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method);
    }
    return [...allowed].sort();
  }
}

/**
 * A Fastify path pattern as a regular expression over the raw (still percent-encoded) path, as the
 * router matches it: `:name` (with an optional `(regex)`) is one non-empty segment, `*` the rest,
 * `::` a literal colon.
 */
function patternOf(url: string): RegExp {
  const source = url
    .split(/(::|:[A-Za-z0-9_$-]+(?:\([^)]*\))?|\*)/)
    .map((part) => {
      if (part === '::') return ':';
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}
