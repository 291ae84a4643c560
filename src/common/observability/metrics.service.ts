import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, MetricValue, MetricValueWithName, Registry } from 'prom-client';
import { DependencyStatus } from './dependency-status';

const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  labels: { method: string; route: string; status: string };
  /** Requests per bucket (not cumulative), the last one past the largest bound (+Inf). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * Prometheus metrics of this process; its own registry so that several apps can live in one process (tests).
 * The request count and latency are kept in one plain map per label set and turned into the counter and
 * histogram only when scraped: prom-client's own `observe` rebuilds and hashes the label object of every
 * request (it showed in the hot path's profile).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly series = new Map<string, Series>();

  constructor(dependencies: DependencyStatus) {
    collectDefaultMetrics({ register: this.registry });
    registerDependencyMetrics(this.registry, dependencies);
    this.registry.registerMetric(
      this.metric('http_requests_total', 'HTTP requests by method, route and status', 'counter', () =>
        [...this.series.values()].map((s) => ({ labels: s.labels, value: s.count })),
      ) as never,
    );
    this.registry.registerMetric(
      this.metric('http_request_duration_seconds', 'HTTP request latency by method, route and status', 'histogram', () =>
        [...this.series.values()].flatMap((s) => histogramValues('http_request_duration_seconds', s)),
      ) as never,
    );
  }

  /** `route` is the route template (`/api/v1/patients/:id`), never the raw URL, so ids stay out. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    s.buckets[i]++;
  }

  /** A metric the registry formats like prom-client's own: get() answers its current values. */
  private metric(
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    values: () => (MetricValue<string> | MetricValueWithName<string>)[],
  ) {
    const aggregator = 'sum';
    return {
      name,
      help,
      type,
      aggregator,
      get: () => Promise.resolve({ name, help, type, aggregator, values: values() }),
      reset: () => this.series.clear(),
    };
  }
}

function histogramValues(name: string, s: Series): MetricValueWithName<string>[] {
  const out: MetricValueWithName<string>[] = [];
  let cumulative = 0;
  DURATION_BUCKETS.forEach((le, i) => {
    cumulative += s.buckets[i];
    out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
  });
  out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
  out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
  out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
  return out;
}

/** PostgreSQL's and Redis's state per connection role and the 503s of their outages, read from DependencyStatus when scraped. */
function registerDependencyMetrics(registry: Registry, dependencies: DependencyStatus): void {
  new Counter({
    name: 'dependency_state_changes_total',
    help: 'Times a connection role of this process lost (state="down") or regained (state="up") PostgreSQL or Redis',
    labelNames: ['dependency', 'role', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of dependencies.states) {
        this.inc({ dependency: s.dependency, role: s.role, state: 'down' }, s.downs);
        this.inc({ dependency: s.dependency, role: s.role, state: 'up' }, s.ups);
      }
    },
  });
  new Gauge({
    name: 'dependency_up',
    help: 'Whether a connection role of this process reaches its dependency (1) or not (0)',
    labelNames: ['dependency', 'role'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of dependencies.states) this.set({ dependency: s.dependency, role: s.role }, s.up ? 1 : 0);
    },
  });
  new Counter({
    name: 'http_service_unavailable_total',
    help: '503 service_unavailable answers (PostgreSQL or Redis unreachable)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(dependencies.unavailableAnswers);
    },
  });
}
