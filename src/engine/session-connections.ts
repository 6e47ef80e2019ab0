/**
 * The DuckDB connections sessions run on, kept per instance and handed from one session to the next.
 *
 * Every session connection carries the cost and value guards (cost-guards.ts, value-guards.ts,
 * regex-guards.ts, list-guards.ts): temporary macros that shadow built-ins, because DuckDB looks a
 * function up in `temp` before any schema. Creating them is most of a session's start (≈ 12 ms of
 * CPU in-process, 19 ms under load), so a connection keeps them for its life and goes back to its
 * instance's idle list when its session ends, reset to what a fresh one is.
 *
 * Why a pool and not the guards created once in a shared schema: only `temp` comes before every
 * other schema in every binding. A macro in a shared database is found first only while that
 * database leads the session's search_path, and a view's or macro's body is bound with its own schema
 * ahead of the session's path, so the guards would stop shadowing there; DuckDB's `current_schema()`
 * would name the guards' schema. Kept in `temp`, name resolution stays exactly as the guard tests
 * know it; what must be proven instead is that a session leaves nothing behind, which is checked
 * at every return (`fingerprint`, compared with the instance's fresh connection) and tested
 * (test/session-connections.test.ts).
 *
 * What a session changes on its connection is the gateway's own doing — USE of its version,
 * search_path, TimeZone, `SET VARIABLE` of its settings and identity — since admission and the
 * engine line let nothing but reads reach DuckDB (no DDL, no SET, `setseed` refused). The reset undoes
 * each — variables go back to the instance's baseline (the default settings' mirror, which every
 * connection holds between sessions so a session sets only what its own values change; any other
 * variable is reset) —, reseeds DuckDB's random generator from the process's entropy (so no one
 * session's random() or gen_random_uuid() state carries into the next), and the connection is kept
 * only if its fingerprint then equals a fresh one's; otherwise it is disconnected. The reset, the
 * reseed and the fingerprint are one DuckDB call when the variables a session left are ones sessions
 * were seen to leave before (`Pool.seen`); only a session that left another is read first. A session's handle is its
 * own: once its session ends it reaches nothing (a stale interrupt is a no-op, any other call fails
 * as on a disconnected connection) and its prepared statements are destroyed, as a disconnect did,
 * so a late timer or stream of the old session can never touch the next session's statements.
 */
import { randomInt } from 'node:crypto';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { counted } from '../stages.js';
import { degraded, firstLine } from '../degraded.js';
import { quoteIdent, quoteLiteral } from '../quote.js';
import { costGuardStatements, GUARDED_ARITIES_SQL } from './cost-guards.js';
import { growthGuardStatements } from './growth-guards.js';
import { concatGuardStatements } from './concat-guards.js';
import { listGuardStatements } from './list-guards.js';
import { mergeGuardStatements } from './merge-guards.js';
import { nestingGuardStatements } from './nesting-guards.js';
import { regexGuardStatements } from './regex-guards.js';
import { valueGuardStatements } from './value-guards.js';
import { transactionClockStatements } from './transaction-clock.js';
import { connectionCallsDone } from './engine-calls.js';
import { memoryTurnsOf } from './memory-turns.js';
import { STREAMING_BUFFER_SIZE } from './memory-ceiling.js';
import { sessionEnded, sessionStarted } from '../idle-memory.js';

/** Idle connections kept per instance; more than this many ending at once are disconnected. */
export const IDLE_CONNECTIONS = 16;

/**
 * What a session can change on its connection, and what must equal a fresh connection's after the
 * reset: the database and schema names resolve in, the search path, the variables set, and the
 * settings — of a sealed instance those its lock leaves open (engine.ts › sealEngine: DuckDB lets
 * only `allowed_configs`, search_path and schema change), of any other every setting.
 */
async function fingerprintColumns(conn: DuckDBConnection): Promise<string> {
  const [locked, allowed] = (
    await conn.runAndReadAll("SELECT current_setting('lock_configuration'), current_setting('allowed_configs')")
  ).getRows()[0]!;
  const open =
    locked === true
      ? (allowed as { items: unknown[] }).items.map((name) => `current_setting(${quoteLiteral(String(name))})`)
      : [`(SELECT string_agg(name || '=' || coalesce(value, ''), chr(10) ORDER BY name) FROM duckdb_settings())`];
  const variables = `(SELECT string_agg(name || ':' || type || '=' || value, chr(10) ORDER BY name) FROM duckdb_variables())`;
  return `current_database(), current_schema(), current_setting('search_path'), ${[...open, variables].join(', ')}`;
}

interface Pool {
  /** The instance its connections belong to (a separate connection of it probes it: probeSessionEngine). */
  instance: DuckDBInstance;
  /** Its instance was replaced (engines.ts retire): connections are disconnected, never kept. */
  retired: boolean;
  /** Variables every session connection holds between sessions (name → VARCHAR value), set once per connection. */
  baseline: ReadonlyMap<string, string>;
  /** The statements that install the guards, built once from the instance's catalog. */
  guards: Promise<string>;
  /** What a connection's fingerprint reads (a select list), and a fresh connection's, taken once. */
  fresh: Promise<{ columns: string; value: string }> | null;
  idle: DuckDBConnection[];
  /**
   * Variables sessions were seen to leave behind (read at a reset that needed it): other names to
   * reset, and baseline names to set back. The next reset undoes these without reading first.
   */
  seen: { extra: Set<string>; changed: Set<string> };
}

/** At most this many variable names are remembered per instance (`Pool.seen`); others are read when left. */
const SEEN_VARIABLES = 64;

const pools = new WeakMap<DuckDBInstance, Pool>();
/** A session's handle → its connection, its pool and how to cut the handle off. */
const handles = new WeakMap<DuckDBConnection, { conn: DuckDBConnection; pool: Pool; end: () => void }>();

/** The instance a session's connection belongs to (undefined for a connection not taken here: a test's own). */
export function instanceOfSession(handle: DuckDBConnection): DuckDBInstance | undefined {
  return handles.get(handle)?.pool.instance;
}

/** The prepare wrapper every session connection gets (engine.ts supplies the slots). */
export type PrepareInSlot = <T>(sql: string, work: () => Promise<T>, connection?: object) => Promise<T>;

/**
 * A connection for one client session: UTC until the session says otherwise, whatever the global
 * value; the guards installed. An idle one of the instance if there is one, else a new one.
 */
export async function takeSessionConnection(
  instance: DuckDBInstance,
  inPrepareSlot: PrepareInSlot,
  baseline: ReadonlyMap<string, string> = new Map(),
): Promise<DuckDBConnection> {
  let pool = pools.get(instance);
  if (!pool) {
    pool = {
      instance,
      retired: false,
      baseline,
      guards: guardStatements(instance),
      fresh: null,
      idle: [],
      seen: { extra: new Set(), changed: new Set() },
    };
    pools.set(instance, pool);
    pool.guards.catch(() => pools.delete(instance)); // the next session asks the catalog again
  }
  // A new connection's set-up takes blocks of the pool: in turn with the instance's other calls (memory-turns.ts).
  const conn =
    pool.idle.pop() ??
    (await memoryTurnsOf(instance).retriedOn(
      () => ({}),
      () => newConnection(instance, pool!, inPrepareSlot),
    ));
  sessionStarted(); // until endSessionConnection: the gateway is not idle (idle-memory.ts)
  return handleFor(conn, pool);
}

/**
 * The session that took `handle` has ended and nothing of it runs on the connection any more: cut
 * the handle off, reset the connection and keep it for the next session, or disconnect it.
 */
export async function endSessionConnection(handle: DuckDBConnection): Promise<void> {
  const held = handles.get(handle);
  if (!held) {
    handle.disconnectSync(); // not one of ours (a test's own connection)
    return;
  }
  // A statement DuckDB could not interrupt may still run on it: the reset would wait on a second
  // thread of libuv's pool for it; wait here instead, where waiting holds no thread.
  await connectionCallsDone(handle);
  if (!handles.delete(handle)) return; // ended already
  held.end();
  sessionEnded();
  const { conn, pool } = held;
  try {
    // The session's prepared statements go as with a disconnect: none can run on the next session's
    // connection (the binding's own list of them; were it gone, the connection is disconnected).
    (conn as unknown as { preparedStatements: { destroySync(): void } }).preparedStatements.destroySync();
    if (!pool.retired && pool.idle.length < IDLE_CONNECTIONS) {
      if (!(await reset(conn, pool))) throw new Error('the reset left state behind');
      if (pool.idle.length < IDLE_CONNECTIONS) {
        pool.idle.push(conn);
        return;
      }
    }
  } catch (e) {
    degraded('reset_leak', `a session connection could not be reset for reuse: ${firstLine(e)}`);
  }
  try {
    conn.disconnectSync();
  } catch {
    /* already gone */
  }
}

/**
 * The variables a session's connection held when the session took it (name → VARCHAR value):
 * exactly its instance's baseline, since a connection is handed out only new or with its
 * fingerprint equal to a fresh one's. Undefined for a connection that is not a session's.
 */
export function variablesWhenTaken(handle: DuckDBConnection): ReadonlyMap<string, string> | undefined {
  return handles.get(handle)?.pool.baseline;
}

/**
 * The instance was replaced (engines.ts retire): its idle connections are disconnected — each kept
 * the whole instance alive, its memory and its open catalog and views files — and the connections
 * of sessions still on it are disconnected as those sessions end.
 */
export function retireSessionConnections(instance: DuckDBInstance): void {
  const pool = pools.get(instance);
  if (!pool) return;
  pools.delete(instance);
  pool.retired = true;
  for (const conn of pool.idle.splice(0)) {
    try {
      conn.disconnectSync();
    } catch {
      /* already gone */
    }
  }
}

/**
 * Whether the instance of a session's connection still works, asked on a separate connection of
 * it: a statement on the session's own connection would end a stream the session keeps open there
 * (a WITH HOLD cursor's, a suspended portal's). Throws DuckDB's error (or "instance closed" once it
 * was replaced).
 */
export async function probeSessionEngine(handle: DuckDBConnection): Promise<void> {
  const held = handles.get(handle);
  if (!held) {
    await handle.run('SELECT 1'); // not one of ours (a test's own connection)
    return;
  }
  const probe = await held.pool.instance.connect();
  try {
    await probe.run('SELECT 1');
  } finally {
    probe.disconnectSync();
  }
}

/** How many connections an instance has idle (tests, status). */
export function idleSessionConnections(instance: DuckDBInstance): number {
  return pools.get(instance)?.idle.length ?? 0;
}

async function newConnection(
  instance: DuckDBInstance,
  pool: Pool,
  inPrepareSlot: PrepareInSlot,
): Promise<DuckDBConnection> {
  const conn = await instance.connect();
  // Every prepare of the session (planning, result shape and parameter probes, pruning's EXPLAIN) takes a slot.
  const prepare = conn.prepare.bind(conn);
  // Called through a session's handle, `this` is the handle, whose user the prepare is counted for (engine-calls.ts).
  conn.prepare = function (this: DuckDBConnection, sql: string) {
    return inPrepareSlot(sql, () => prepare(sql), this);
  };
  try {
    await conn.run("SET SESSION TimeZone = 'UTC'");
    await conn.run(`SET SESSION streaming_buffer_size = '${STREAMING_BUFFER_SIZE}'`);
    await conn.run(await pool.guards);
    if (pool.baseline.size > 0) await conn.run(setVariables(pool.baseline));
    counted('guard_install');
    pool.fresh ??= fingerprintColumns(conn).then(async (columns) => ({
      columns,
      value: await fingerprint(conn, `SELECT ${columns}`),
    }));
    await pool.fresh;
  } catch (e) {
    pool.fresh = null;
    conn.disconnectSync();
    throw e;
  }
  return conn;
}

/**
 * Undo what a session set on its connection (module comment) and tell whether its fingerprint now
 * equals a fresh connection's. First in one DuckDB call, the fingerprint read in the same call: USE,
 * search_path, TimeZone and the seed, and the variables sessions were seen to leave behind. If
 * something else was left, the variables are read and exactly those undone (a value changed is set
 * again, one the baseline lacks is reset), and their names remembered for the next reset.
 */
async function reset(conn: DuckDBConnection, pool: Pool): Promise<boolean> {
  const fresh = await pool.fresh;
  if (!fresh) return false;
  const { extra, changed } = pool.seen;
  if (await resetAndCompare(conn, pool.baseline, extra, changed, fresh)) return true;
  const vars = (await conn.runAndReadAll('SELECT name, value, type FROM duckdb_variables()')).getRows();
  const undo = new Set<string>();
  const back = new Set(pool.baseline.keys());
  for (const [name, value, type] of vars) {
    const kept = pool.baseline.get(String(name));
    if (kept !== undefined && type === 'VARCHAR' && value === kept) back.delete(String(name));
    else if (kept === undefined) undo.add(String(name));
  }
  for (const name of undo) if (extra.size < SEEN_VARIABLES) extra.add(name);
  for (const name of back) if (changed.size < SEEN_VARIABLES) changed.add(name);
  return resetAndCompare(conn, pool.baseline, undo, back, fresh);
}

async function resetAndCompare(
  conn: DuckDBConnection,
  baseline: ReadonlyMap<string, string>,
  undo: ReadonlySet<string>,
  back: ReadonlySet<string>,
  fresh: { columns: string; value: string },
): Promise<boolean> {
  const seed = randomInt(-(2 ** 46), 2 ** 46) / 2 ** 46; // setseed takes [-1, 1]
  const statements = [
    'USE memory',
    'RESET search_path',
    "SET SESSION TimeZone = 'UTC'",
    ...[...undo].map((name) => `RESET VARIABLE ${quoteIdent(name)}`),
    ...(back.size > 0 ? [setVariables(new Map([...back].map((name) => [name, baseline.get(name)!])))] : []),
    // the last, and the only one that returns rows; the seed in the same statement (a statement fewer)
    `SELECT ${fresh.columns}, setseed(${seed})`,
  ];
  return (await fingerprint(conn, statements.join('; '), 1)) === fresh.value;
}

function setVariables(vars: ReadonlyMap<string, string>): string {
  return [...vars].map(([name, value]) => `SET VARIABLE ${quoteIdent(name)} = ${quoteLiteral(value)}`).join('; ');
}

/** The first row `sql` returns, less its last `extra` columns, as one string. */
async function fingerprint(conn: DuckDBConnection, sql: string, extra = 0): Promise<string> {
  const row = (await conn.runAndReadAll(sql)).getRows()[0];
  return JSON.stringify(row?.slice(0, row.length - extra), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}

/**
 * The session's own view of `conn` (module comment): everything passes through until its session
 * ends; then `interrupt` does nothing and any other call fails as on a disconnected connection.
 */
function handleFor(conn: DuckDBConnection, pool: Pool): DuckDBConnection {
  let ended = false;
  const handle = new Proxy(conn, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (!ended || typeof value !== 'function') return ended ? undefined : value;
      if (key === 'interrupt' || key === 'disconnectSync') return () => undefined;
      return () => {
        throw new Error('Failed to query: connection disconnected');
      };
    },
    set(target, key, value) {
      return !ended && Reflect.set(target, key, value);
    },
  });
  handles.set(handle, { conn, pool, end: () => (ended = true) });
  return handle;
}

/** The cost and value guards' macros (cost-, value-, regex-, list-, growth-, merge- and nesting-guards.ts) as one text, built once per instance from its catalog. */
export async function guardStatements(instance: DuckDBInstance): Promise<string> {
  const conn = await instance.connect();
  try {
    const rows = (await conn.runAndReadAll(GUARDED_ARITIES_SQL)).getRows();
    const arities = new Map(
      rows.map((r) => [String(r[0]), (r[1] as { items: unknown[] }).items.map(Number).sort((a, b) => a - b)]),
    );
    return [
      ...costGuardStatements(arities),
      ...valueGuardStatements(),
      ...regexGuardStatements(),
      ...listGuardStatements(),
      ...growthGuardStatements(),
      ...concatGuardStatements(),
      ...mergeGuardStatements(),
      ...nestingGuardStatements(),
      ...transactionClockStatements(),
    ].join(';\n');
  } finally {
    conn.disconnectSync();
  }
}
