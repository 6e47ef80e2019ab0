/**
 * Statement counts and durations (src/service/statement-times.ts) are exposed exactly as
 * prom-client's own Histogram exposes the same observations: same buckets, sums, counts and labels.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { OUTCOMES, StatementTimes } from '../src/service/statement-times.js';

const BOUNDS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300];
const NAME = 'fdl_query_duration_seconds';
const HELP = 'Statement execution time, from start to the last row sent';

test('the exposition equals prom-client Histogram for the same observations', async () => {
  const theirs = new Registry();
  const reference = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['outcome'],
    buckets: BOUNDS,
    registers: [theirs],
  });
  const ours = new Registry();
  const times = new StatementTimes(BOUNDS);
  ours.registerMetric(times.histogram(NAME, HELP));
  // on every bound, between bounds, below the first and above the last
  const values = [0, 0.0004, 0.001, 0.0010001, 0.005, 0.03, 0.1, 0.7, 1, 4.99, 10, 59, 60, 299.9, 300, 301, 1e6];
  values.forEach((v, i) => {
    const outcome = OUTCOMES[i % OUTCOMES.length]!;
    reference.observe({ outcome }, v);
    times.record(outcome, v);
  });
  times.record('error', undefined); // counted (fdl_queries_total), no duration: not an observation
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.equal(times.count('error'), values.filter((_, i) => i % 3 === 1).length + 1);
});

test('outcomes with no statement yet show at zero', async () => {
  const reg = new Registry();
  const times = new StatementTimes(BOUNDS);
  reg.registerMetric(times.histogram(NAME, HELP));
  times.record('ok', 0.002);
  const text = await reg.metrics();
  assert.match(text, /^fdl_query_duration_seconds_count\{outcome="cancelled"\} 0$/m);
  assert.match(text, /^fdl_query_duration_seconds_bucket\{le="\+Inf",outcome="error"\} 0$/m);
  assert.match(text, /^fdl_query_duration_seconds_bucket\{le="0.005",outcome="ok"\} 1$/m);
  assert.match(text, /^fdl_query_duration_seconds_bucket\{le="0.001",outcome="ok"\} 0$/m);
});
