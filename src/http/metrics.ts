// Prometheus metrics at /metrics: request counts and durations by method, route template and status, plus the
// process's default metrics. Anonymous, like most Prometheus scrape targets; it exposes no PLC data.
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.ts';

// Default metrics describe the process, not an app instance, and their collectors cannot be removed again:
// collect them once per process and merge them into each app's scrape.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Registers the request metrics hook and the `/metrics` route; returns this app's registry for other areas. */
export function installMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  const requests = new RequestMetrics();
  for (const metric of requests.metrics()) registry.registerMetric(metric);
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label so scanners cannot blow up the series count.
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    requests.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const merged = Registry.merge([registry, processMetrics()]);
    return reply.type(merged.contentType).send(await merged.metrics());
  });
  return registry;
}
