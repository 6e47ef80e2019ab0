/**
 * Statement counts and durations by outcome, kept as plain numbers and read by prom-client at scrape
 * time. Every statement lands here (a `SELECT 1` from a pool's health check as much as a report), so
 * recording is a few additions: prom-client's own Counter and Histogram hash their labels on every
 * call, which cost more than the rest of a cached statement's bookkeeping together.
 */
import type { Metric } from 'prom-client';

export type QueryOutcome = 'ok' | 'error' | 'cancelled';

export const OUTCOMES: readonly QueryOutcome[] = ['ok', 'error', 'cancelled'];

interface Tally {
  count: number;
  /** Seconds. */
  sum: number;
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly buckets: Float64Array;
}

export class StatementTimes {
  private readonly tallies: Record<QueryOutcome, Tally>;

  /** `bounds`: the histogram's upper bounds in seconds, ascending. */
  constructor(private readonly bounds: readonly number[]) {
    const tally = (): Tally => ({ count: 0, sum: 0, buckets: new Float64Array(bounds.length + 1) });
    this.tallies = { ok: tally(), error: tally(), cancelled: tally() };
  }

  record(outcome: QueryOutcome, seconds: number | undefined): void {
    const t = this.tallies[outcome];
    t.count++;
    if (seconds === undefined || !Number.isFinite(seconds)) return;
    t.sum += seconds;
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    t.buckets[i]!++;
  }

  count(outcome: QueryOutcome): number {
    return this.tallies[outcome].count;
  }

  /**
   * The durations as a prom-client histogram (what a Histogram's `get()` reports: cumulative
   * `_bucket` series with `le`, `_sum`, `_count`), for its Registry to format. Statements that
   * failed before they ran have a count and no duration, as before: `_count` is the observations.
   */
  histogram(name: string, help: string): Metric {
    const self = this;
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get() {
        const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
        for (const outcome of OUTCOMES) {
          const t = self.tallies[outcome];
          let acc = 0;
          self.bounds.forEach((le, i) => {
            acc += t.buckets[i]!;
            values.push({ labels: { le, outcome }, value: acc, metricName: `${name}_bucket` });
          });
          acc += t.buckets[self.bounds.length]!;
          values.push({ labels: { le: '+Inf', outcome }, value: acc, metricName: `${name}_bucket` });
          values.push({ labels: { outcome }, value: t.sum, metricName: `${name}_sum` });
          values.push({ labels: { outcome }, value: acc, metricName: `${name}_count` });
        }
        return Promise.resolve({ name, help, type: 'histogram', values, aggregator: 'sum' });
      },
      reset() {
        /* totals since start, like every other counter here */
      },
    };
    // The Registry needs only what a metric reports (get) and its name: the shape its own classes share.
    return metric as unknown as Metric;
  }
}
