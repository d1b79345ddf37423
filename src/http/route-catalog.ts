// Remembers each route's options by method and URL template, so another front door to the same operations (the
// MCP tools) applies exactly the rules the route declares instead of a copy of them that could drift.
import type { FastifyContextConfig, FastifyInstance } from 'fastify';

/** `GET /api/plcs/:plcId/status`: the method and the URL template as the route registered it. */
export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`;

export interface RouteCatalog {
  /** The options of a registered route; throws when there is none, so a renamed route fails start-up. */
  options(key: RouteKey): FastifyContextConfig;
}

/** Installs the recording hook; call before the routes are registered. */
export function installRouteCatalog(app: FastifyInstance): RouteCatalog {
  const routes = new Map<string, FastifyContextConfig>();
  app.addHook('onRoute', (route) => {
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    for (const method of methods) routes.set(`${method.toUpperCase()} ${route.url}`, route.config ?? {});
  });
  return {
    options(key) {
      const found = routes.get(key);
      if (found === undefined) throw new Error(`No route ${key} is registered.`);
      return found;
    },
  };
}
