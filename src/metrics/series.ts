/**
 * Series kept as plain numbers and turned into prom-client's format when scraped, for the metrics
 * counted on every request: prom-client's labelled children hash their labels on each inc() and
 * observe() (about a microsecond each), these add to a field of an object looked up once.
 */
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string>;

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative), the last one +Inf. */
  readonly counts: number[];
  sum = 0;

  constructor(
    readonly labels: Labels,
    private readonly buckets: readonly number[],
  ) {
    this.counts = new Array<number>(buckets.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
  }
}

interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

function register(registry: Registry, name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]): void {
  const metric = { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) };
  registry.registerMetric(metric as unknown as Metric);
}

export function registerCounter(registry: Registry, name: string, help: string, series: () => Iterable<CounterSeries>): void {
  register(registry, name, help, 'counter', () => Array.from(series(), (s) => ({ labels: s.labels, value: s.value })));
}

export function registerHistogram(
  registry: Registry,
  name: string,
  help: string,
  buckets: readonly number[],
  series: () => Iterable<HistogramSeries>,
): void {
  register(registry, name, help, 'histogram', () =>
    Array.from(series()).flatMap((s) => {
      let cumulative = 0;
      const samples: Sample[] = buckets.map((le, i) => {
        cumulative += s.counts[i]!;
        return { labels: { ...s.labels, le: String(le) }, value: cumulative, metricName: `${name}_bucket` };
      });
      const count = cumulative + s.counts[buckets.length]!;
      samples.push(
        { labels: { ...s.labels, le: '+Inf' }, value: count, metricName: `${name}_bucket` },
        { labels: s.labels, value: s.sum, metricName: `${name}_sum` },
        { labels: s.labels, value: count, metricName: `${name}_count` },
      );
      return samples;
    }),
  );
}
