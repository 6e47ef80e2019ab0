/**
 * Where a statement's time goes, by stage, and how often the work that should happen once per
 * statement (or once per text) happens. Process-wide plain numbers, as degraded.ts keeps its counts:
 * recording is an addition on the statement's path; /metrics reads them at scrape time
 * (fdl_statement_stage_seconds, fdl_statement_work_total).
 *
 * Time is wall time spent in the stage: for the stages that run on the event loop (decode, planning,
 * admission, encoding) that is the gateway's own CPU; for those that wait on DuckDB (analysis,
 * prepare, bind check, execution) it is DuckDB's time on its threads as the statement waits for it.
 * A statement's split is what accrued since the previous statement ended: exact with one statement
 * running at a time, mixed across statements when sessions overlap (the totals stay exact).
 *
 * With FDL_STAGE_CLOCK=cpu in the environment (benches, bench/new-text-cost.ts) the clock is the process'
 * CPU time instead (getrusage: every thread's, DuckDB's included), so a stage's seconds are the CPU the
 * whole process spent in it — the split a busy machine's waits for a core do not blur.
 */
export const STAGES = [
  'decode',
  'analysis',
  'admission',
  'planning',
  'prepare',
  'bind_check',
  'pruning',
  'revalidation',
  'execution',
  'encoding',
] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Work counted, each at most once per statement (or per text):
 * - analysis: a DuckDB parse of a text (analysis/analysis.ts), memoized by text;
 * - duckdb_prepare: the statement prepared by DuckDB (at most once per parameter-type signature);
 * - type_probe: a probe DuckDB prepares, never runs, for PostgreSQL's parameter types or a result's shape before Bind;
 * - bind_check: DuckDB's bind of a text for the engine's line (analysis/side-effects.ts);
 * - verdict_reuse: the engine line's verdict taken from a text of the same shape in the same scope
 *   instead of a bind (side-effects.ts, analysis/bind-shape.ts);
 * - prune_explain: DuckDB's EXPLAIN of a statement to choose its files (lake/prune.ts);
 * - ref_check: the session's ref judged for a move (session/ref-follower.ts);
 * - revalidation: a version re-checked before a statement runs or is replayed (versions/);
 * - guard_install: a new session connection's guard macros created (engine/session-connections.ts),
 *   once per DuckDB connection, which later sessions reuse: not per session, nor per statement;
 * - pg_parse: PostgreSQL's grammar run over a text (pg/pg-parse.ts, memoized by text): for the rewrite
 *   and for undeclared parameters' types, not for a text whose parameters the client declared;
 * - plan_shared: a text that differs from one its session planned only inside comments ran that plan
 *   (session/comment-sharing.ts) instead of being analysed and prepared;
 * - constants_shared: a text ran the plan of its shape, its constants compared with columns bound as
 *   parameters (session/constant-sharing.ts), instead of being analysed and prepared;
 * - result_call: a DuckDB call that starts or reads a statement's result (wire/result-stream.ts): a
 *   stream's start, each chunk fetched (the end too), or a result of one chunk at most run whole;
 * - float_check: a float check (pg/float-range.ts: a tree of `+ - *`) in the text DuckDB prepares, counted when
 *   the statement is planned: over operands known not to be floats there is none (pg/operand-types.ts).
 */
export const WORKS = [
  'analysis',
  'duckdb_prepare',
  'type_probe',
  'bind_check',
  'verdict_reuse',
  'prune_explain',
  'ref_check',
  'revalidation',
  'guard_install',
  'pg_parse',
  'plan_shared',
  'constants_shared',
  'result_call',
  'float_check',
] as const;
export type Work = (typeof WORKS)[number];

/** Upper bounds of the per-statement histogram, in seconds. */
export const STAGE_BOUNDS: readonly number[] = [
  0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1,
];

const stageIndex = new Map<Stage, number>(STAGES.map((s, i) => [s, i]));
const workIndex = new Map<Work, number>(WORKS.map((w, i) => [w, i]));

/** Milliseconds accrued per stage since the last statement ended. */
const current = new Float64Array(STAGES.length);
/** Per stage: seconds in total, and per-statement observations by bucket (not cumulative; the last is +Inf). */
const totalSeconds = new Float64Array(STAGES.length);
const buckets = STAGES.map(() => new Float64Array(STAGE_BOUNDS.length + 1));
let statements = 0;
const works = new Float64Array(WORKS.length);

/** The process' CPU time so far, in milliseconds. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A start time for `spent` (milliseconds: monotonic wall time, or the process' CPU time). */
export const stageClock: () => number = process.env.FDL_STAGE_CLOCK === 'cpu' ? cpuMs : () => performance.now();

/** Time since `started` (from stageClock) was spent in `stage`. */
export function spent(stage: Stage, started: number): void {
  current[stageIndex.get(stage)!]! += stageClock() - started;
}

/** Time `work` in `stage` (its wait included), whether it resolves or rejects. */
export async function timed<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
  const t = stageClock();
  try {
    return await work();
  } finally {
    spent(stage, t);
  }
}

/** One unit of `work` done. */
export function counted(work: Work): void {
  works[workIndex.get(work)!]!++;
}

/** A statement ended: what accrued since the last one is its split. */
export function statementEnded(): void {
  statements++;
  for (let s = 0; s < STAGES.length; s++) {
    const seconds = current[s]! / 1000;
    current[s] = 0;
    totalSeconds[s]! += seconds;
    let i = 0;
    while (i < STAGE_BOUNDS.length && seconds > STAGE_BOUNDS[i]!) i++;
    buckets[s]![i]!++;
  }
}

/** For /metrics: per stage, the cumulative histogram of its seconds per statement. */
export function stageHistogram(stage: Stage): { cumulative: number[]; sum: number; count: number } {
  const s = stageIndex.get(stage)!;
  const cumulative: number[] = [];
  let acc = 0;
  for (const n of buckets[s]!) cumulative.push((acc += n));
  return { cumulative, sum: totalSeconds[s]!, count: statements };
}

/** For /metrics and tests: how often each work was done since the process started. */
export function workCount(work: Work): number {
  return works[workIndex.get(work)!]!;
}
