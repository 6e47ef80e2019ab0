/**
 * Work the gateway carries on without, said out loud: each case logs one line and counts in
 * /metrics as fdl_degraded_total{what}. Process-wide (a gateway is one process); the gateway
 * gives its logger at start, before that a line goes to stderr.
 */
export const DEGRADED = [
  'view_dropped', // a DuckLake view or macro that could not be created in the version
  'temp_dir_unreadable', // the temp ceiling cannot measure its directory (it stops working)
  'ledger_write', // a state ledger could not be written (verification is redone after a restart)
  'prune_index', // no pruning index for a remote version: every file is fetched
  'version_history', // a version in fdl.versions' history could not be read (history cut there)
  'detach', // a DETACH failed (an evicted version, a pruning index, an attach undone)
  'prune_table', // a table whose statistics cannot be queried: every file of it is fetched
  'prune_plan', // a statement the pruning database cannot plan: every file it reads is fetched
  'session_end', // a gateway session could not end cleanly (its suspended results, its DuckDB connection)
  'reset_leak', // a session connection's reset left state behind (the connection is disconnected)
  'comment_dropped', // a schema's or table's comment from the catalog could not be set (obj_description is NULL)
  'native_table', // a small table's copy into a native DuckDB table ran past its time: it is a view (slower, same rows)
  'version_open', // building a version's views failed: its logins are refused without the builder's internals, which go here
] as const;
export type Degraded = (typeof DEGRADED)[number];

type Warn = (fields: Record<string, unknown>, message: string) => void;

const counts = new Map<Degraded, number>(DEGRADED.map((d) => [d, 0]));
let warn: Warn = (fields, message) =>
  process.stderr.write(`${JSON.stringify({ level: 40, ...fields, msg: message })}\n`);

/** Where degraded lines go (the gateway's logger). */
export function logDegradedTo(w: Warn): void {
  warn = w;
}

/** One degraded case: a log line and a count. `detail` must not quote client literals or server paths. */
export function degraded(what: Degraded, detail: string): void {
  counts.set(what, (counts.get(what) ?? 0) + 1);
  try {
    warn({ degraded: what }, detail);
  } catch {
    /* logging must not turn a degraded case into a failure */
  }
}

/** An error's first line, for a degraded detail. */
export function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** Counts so far, for /metrics. */
export function degradedCounts(): ReadonlyMap<Degraded, number> {
  return counts;
}
