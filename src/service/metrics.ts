/**
 * The gateway's Prometheus metrics (prom-client), in one registry per gateway. Counters are bumped
 * by the wire and version layers through small hooks; gauges that mirror cache state are read at
 * scrape time. Labels are closed sets (outcome, cache, reason, kind): never SQL text, user, database
 * or ref names, which clients choose.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { DEGRADED, degradedCounts } from '../degraded.js';
import { engineCallLoad } from '../engine/engine-calls.js';
import { engineFailures } from '../engine/engine-failure.js';
import { OUTCOMES, StatementTimes, type QueryOutcome } from './statement-times.js';
import { SQLSTATE } from '../errors.js';
import { STAGE_BOUNDS, STAGES, stageHistogram, WORKS, workCount } from '../stages.js';

export type { QueryOutcome };
export type VersionFailure = 'verification' | 'resolution' | 'permission';

/** What the caches report at scrape time (bytes in use, and result-cache hits). */
export interface CacheReadings {
  files(): { bytes: number; downloadedBytes: number };
  results(): { bytes: number; hits: number; misses: number };
  versions(): number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly connections: Gauge;
  readonly connectionsTotal: Counter<'outcome'>;
  readonly refused: Counter<'reason'>;
  /** Statements by outcome and their durations (fdl_queries_total, fdl_query_duration_seconds). */
  private readonly times = new StatementTimes([0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300]);
  readonly versionFailures: Counter<'kind'>;
  readonly reloads: Counter<'outcome'>;
  readonly restarts: Gauge;
  private readings: CacheReadings | null = null;

  constructor() {
    const registers = [this.registry];
    // process_resident_memory_bytes, CPU, open fds, event-loop lag, heap: prom-client's defaults.
    collectDefaultMetrics({ register: this.registry });
    this.connections = new Gauge({ name: 'fdl_connections', help: 'Client connections open now', registers });
    this.restarts = new Gauge({
      name: 'fdl_serving_restarts',
      help: 'Times fdl serve started its serving process again after one died (its sessions ended)',
      registers,
    });
    this.connectionsTotal = new Counter({
      name: 'fdl_sessions_total',
      help: 'Sessions that completed startup (outcome=ok) or failed it (outcome=error)',
      labelNames: ['outcome'],
      registers,
    });
    this.refused = new Counter({
      name: 'fdl_connections_refused_total',
      help: 'Connections refused before a session began, by reason',
      labelNames: ['reason'],
      registers,
    });
    const times = this.times;
    new Counter({
      name: 'fdl_queries_total',
      help: 'Statements executed, by outcome',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        for (const outcome of OUTCOMES) this.inc({ outcome }, times.count(outcome));
      },
    });
    this.registry.registerMetric(
      times.histogram('fdl_query_duration_seconds', 'Statement execution time, from start to the last row sent'),
    );
    this.versionFailures = new Counter({
      name: 'fdl_version_failures_total',
      help: 'Versions refused: kind=verification (hash or signature), resolution (unknown or dangling ref), permission (grants)',
      labelNames: ['kind'],
      registers,
    });
    this.reloads = new Counter({
      name: 'fdl_config_reloads_total',
      help: 'SIGHUP reloads, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    for (const r of ['too_many_connections', 'draining', 'proxy_header', 'auth_failed', 'held_off'] as const)
      this.refused.inc({ reason: r }, 0);
    for (const k of ['verification', 'resolution', 'permission'] as const) this.versionFailures.inc({ kind: k }, 0);
    const self = this;
    new Gauge({
      name: 'fdl_cache_bytes',
      help: 'Bytes held by each cache (files on disk, results in memory)',
      labelNames: ['cache'],
      registers,
      collect() {
        if (!self.readings) return;
        this.set({ cache: 'files' }, self.readings.files().bytes);
        this.set({ cache: 'results' }, self.readings.results().bytes);
      },
    });
    new Gauge({
      name: 'fdl_attached_versions',
      help: 'Versions attached in DuckDB now',
      registers,
      collect() {
        if (self.readings) this.set(self.readings.versions());
      },
    });
    // Totals kept elsewhere (file cache, result cache), exposed as counters read at scrape time.
    const readCounter = (name: string, help: string, read: (r: CacheReadings) => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          if (!self.readings) return;
          this.reset();
          this.inc(read(self.readings));
        },
      });
    new Counter({
      name: 'fdl_degraded_total',
      help: 'Work the gateway went on without, by what (each also logged): view_dropped, temp_dir_unreadable, ledger_write, prune_index, version_history, detach',
      labelNames: ['what'],
      registers,
      collect() {
        this.reset();
        const counts = degradedCounts();
        for (const what of DEGRADED) this.inc({ what }, counts.get(what) ?? 0);
      },
    });
    // A DuckDB call no interrupt reaches holds its thread on after its statement stopped (engine/engine-calls.ts).
    new Gauge({
      name: 'fdl_engine_calls_stuck',
      help: "DuckDB calls still running past their statement's stop plus the grace (stuckCallGraceMs) now: the process is wedged while above 0",
      registers,
      collect() {
        this.set(engineCallLoad().stuck);
      },
    });
    new Counter({
      name: 'fdl_engine_calls_stuck_total',
      help: "DuckDB calls that ran on past their statement's stop plus the grace",
      registers,
      collect() {
        this.reset();
        this.inc(engineCallLoad().stuckTotal);
      },
    });
    // A version's open waiting on a file no release reaches (a named pipe moved away: engine/engine-calls.ts).
    new Gauge({
      name: 'fdl_version_opens_stuck',
      help: 'Versions whose open has run past stuckCallGraceMs now (a file of the store does not answer): the process is wedged while above 0',
      registers,
      collect() {
        this.set(engineCallLoad().stuckOpens);
      },
    });
    // DuckDB invalidated a repository's instance on an internal error; a new one replaced it (engine/engine-failure.ts).
    new Counter({
      name: 'fdl_engine_failures_total',
      help: 'Repository engines DuckDB invalidated after an internal error, each replaced by a new one (their sessions ended)',
      registers,
      collect() {
        this.reset();
        this.inc(engineFailures());
      },
    });
    this.registry.registerMetric(stageMetric());
    new Counter({
      name: 'fdl_statement_work_total',
      help: 'Work done for statements, by what: analysis (a DuckDB parse of a new text), duckdb_prepare, type_probe, bind_check (the engine line), prune_explain, ref_check, revalidation',
      labelNames: ['work'],
      registers,
      collect() {
        this.reset();
        for (const work of WORKS) this.inc({ work }, workCount(work));
      },
    });
    readCounter(
      'fdl_store_bytes_downloaded_total',
      'Bytes of data files downloaded from remote stores into the file cache',
      (r) => r.files().downloadedBytes,
    );
    readCounter(
      'fdl_result_cache_hits_total',
      'Statements answered from the result cache without running them',
      (r) => r.results().hits,
    );
    readCounter(
      'fdl_result_cache_misses_total',
      'Repeatable statements looked up in the result cache and not found',
      (r) => r.results().misses,
    );
  }

  /** Where scrape-time gauges read from (set once the caches exist). */
  observeCaches(readings: CacheReadings): void {
    this.readings = readings;
  }

  /** One finished statement (from the session's audit entry: sqlstate and milliseconds). */
  statement(sqlstate: string, ms: number | undefined): void {
    const outcome: QueryOutcome =
      sqlstate === SQLSTATE.successfulCompletion ? 'ok' : sqlstate === SQLSTATE.queryCanceled ? 'cancelled' : 'error';
    this.times.record(outcome, ms === undefined ? undefined : ms / 1000);
    // A data file whose bytes differ from files.json is found while the statement reads it.
    if (sqlstate === SQLSTATE.dataCorrupted) this.versionFailures.inc({ kind: 'verification' });
  }

  /** A version acquisition refused with this SQLSTATE. */
  versionFailure(sqlstate: string): void {
    const kind: VersionFailure =
      sqlstate === SQLSTATE.insufficientPrivilege
        ? 'permission'
        : sqlstate === SQLSTATE.dataCorrupted || sqlstate === SQLSTATE.invalidAuthorization
          ? 'verification'
          : 'resolution';
    this.versionFailures.inc({ kind });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * fdl_statement_stage_seconds{stage}: each statement's time per stage (stages.ts), as a histogram
 * read at scrape time (the same shape StatementTimes reports: cumulative buckets, _sum, _count).
 */
function stageMetric(): Metric {
  const name = 'fdl_statement_stage_seconds';
  const help =
    'Time per statement in each stage: decode, analysis, admission, planning, prepare, bind_check, pruning, revalidation, execution, encoding';
  const get = () => {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const stage of STAGES) {
      const h = stageHistogram(stage);
      STAGE_BOUNDS.forEach((le, i) =>
        values.push({ labels: { le, stage }, value: h.cumulative[i]!, metricName: `${name}_bucket` }),
      );
      values.push({
        labels: { le: '+Inf', stage },
        value: h.cumulative[STAGE_BOUNDS.length]!,
        metricName: `${name}_bucket`,
      });
      values.push({ labels: { stage }, value: h.sum, metricName: `${name}_sum` });
      values.push({ labels: { stage }, value: h.count, metricName: `${name}_count` });
    }
    return Promise.resolve({ name, help, type: 'histogram', values, aggregator: 'sum' });
  };
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined } as unknown as Metric;
}
