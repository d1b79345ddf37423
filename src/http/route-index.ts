// Remembers every registered route so a request on a known path with the wrong method gets 405, not 404.

export interface RouteIndex {
  add(method: string | readonly string[], url: string): void;
  /** Methods registered for a concrete path (no query string), sorted; empty when no route matches. */
  allowedMethods(path: string): string[];
}

export function createRouteIndex(): RouteIndex {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  return {
    add(method, url) {
      const entry = routes.get(url) ?? { pattern: patternFor(url), methods: new Set<string>() };
      for (const m of typeof method === 'string' ? [method] : method) entry.methods.add(m.toUpperCase());
      routes.set(url, entry);
    },
    allowedMethods(path) {
      const allowed = new Set<string>();
      for (const route of routes.values()) {
        if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
      }
      return [...allowed].sort();
    },
  };
}

// Fastify URL templates: `:name` (optionally with a `(regex)` constraint) is one segment, `*` the rest of the path.
export function patternFor(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+(?:\([^)]*\))?|\*)/)
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}
