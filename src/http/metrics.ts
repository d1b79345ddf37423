// Prometheus metrics at /metrics: request counts and durations by method, route template and status, plus the
// process's default metrics. Anonymous, like most Prometheus scrape targets; it exposes no PLC data.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  const labelNames = ['method', 'route', 'status_code'] as const;
  type Label = (typeof labelNames)[number];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route template and status code.',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // One counter and histogram child per series, so a request does not hash its labels again.
  const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<Label> }>();
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label so scanners cannot blow up the series count.
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let children = series.get(key);
    if (children === undefined) {
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      children = { count: requests.labels(labels), time: duration.labels(labels) };
      series.set(key, children);
    }
    children.count.inc();
    children.time.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const merged = Registry.merge([registry, processMetrics()]);
    return reply.type(merged.contentType).send(await merged.metrics());
  });
  return registry;
}
