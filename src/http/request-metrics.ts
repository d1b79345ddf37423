// Request counts and durations, kept as plain numbers per series and turned into Prometheus samples only when
// scraped. prom-client's own label children validate and hash their labels again on every observation, which
// the read path pays on every request; here a request costs one map lookup and a few additions.
import type { Metric, MetricValueWithName } from 'prom-client';

type Label = 'method' | 'route' | 'status_code';
type Sample = MetricValueWithName<string>;

interface Series {
  readonly labels: Readonly<Record<Label, string>>;
  readonly buckets: number[];
  count: number;
  sum: number;
}

const durationBuckets: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class RequestMetrics {
  readonly #series = new Map<string, Series>();

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      const labels = { method, route, status_code: String(statusCode) };
      series = { labels, buckets: durationBuckets.map(() => 0), count: 0, sum: 0 };
      this.#series.set(key, series);
    }
    series.count++;
    series.sum += seconds;
    const bucket = durationBuckets.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) series.buckets[bucket]!++;
  }

  /** The two metrics as a registry takes them: `http_requests_total` and `http_request_duration_seconds`. */
  metrics(): Metric[] {
    const counter = this.#metric(
      'http_requests_total',
      'HTTP requests answered, by method, route template and status code.',
      'counter',
      (s) => [{ labels: s.labels, value: s.count }],
    );
    const histogram = this.#metric(
      'http_request_duration_seconds',
      'Time to answer HTTP requests, by method, route template and status code.',
      'histogram',
      (s) => histogramSamples('http_request_duration_seconds', s),
    );
    return [counter, histogram];
  }

  #metric(
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    samples: (s: Series) => Sample[],
  ): Metric {
    const all = (): Sample[] => [...this.#series.values()].flatMap(samples);
    const described = { name, help, type, aggregator: 'sum' };
    // A registry asks a metric for its name and `get()` only. prom-client's types know its own classes alone, and
    // declare the metric type as a numeric enum where the registry writes the string.
    const metric = { ...described, get: () => Promise.resolve({ ...described, values: all() }) };
    return metric as unknown as Metric;
  }
}

function histogramSamples(name: string, s: Series): Sample[] {
  let cumulative = 0;
  const buckets = durationBuckets.map((bound, i): Sample => {
    cumulative += s.buckets[i]!;
    return { metricName: `${name}_bucket`, labels: { le: bound, ...s.labels }, value: cumulative };
  });
  return [
    ...buckets,
    { metricName: `${name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count },
    { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
    { metricName: `${name}_count`, labels: s.labels, value: s.count },
  ];
}
