/**
 * The one DuckDB instance of a gateway process: created with the engine settings every session
 * shares (UTC, bounded memory and threads, a private temp directory).
 */
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { installCompat } from '../pg/catalog/index.js';
import { nestingDepth } from '../text/split.js';
import { Slots } from '../serial.js';
import { quoteLiteral } from '../quote.js';
import { instanceOfSession, takeSessionConnection } from './session-connections.js';
import { memoryTurnsOf } from './memory-turns.js';
import { enginePrepare } from './engine-calls.js';
import type { EmulationFilePaths } from './emulation-files.js';

export const GATEWAY_VERSION = '0.1.0';
/** DuckDB's expression depth limit (its default 1,000), raised for the `||` guard's macro (below). */
const MAX_EXPRESSION_DEPTH = 2000;

export interface EngineOptions {
  memoryLimit?: string;
  threads?: number;
  tempDirectory?: string;
  maxTempDirectorySize?: string;
  /** The PostgreSQL catalog emulation (default true): an instance no session uses has no need of it. */
  compat?: boolean;
  /** The emulation's files, written once per process (./emulation-files.ts), attached READ_ONLY; absent: written in memory. */
  catalog?: EmulationFilePaths;
}

export async function createEngine(opts: EngineOptions = {}): Promise<DuckDBInstance> {
  const config: Record<string, string> = {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    // Data files never change once written: keep their Parquet footers between queries.
    enable_object_cache: 'true',
  };
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (opts.threads) config.threads = String(opts.threads);
  if (opts.tempDirectory) config.temp_directory = opts.tempDirectory;
  if (opts.maxTempDirectorySize) config.max_temp_directory_size = opts.maxTempDirectorySize;
  const instance = await DuckDBInstance.create(':memory:', config);
  // TimeZone belongs to the ICU extension, which is only there once the instance exists.
  const conn = await instance.connect();
  try {
    await conn.run("SET GLOBAL TimeZone = 'UTC'");
    // Memory returns when the client leaves. DuckDB's allocator (jemalloc) keeps freed pages for
    // reuse; a huge result (200 × 5 MB rows) left RSS ~950 MiB above the baseline for good, since
    // its chunks are freed on the binding's libuv threads, which never flush. Background purge
    // threads with small flush thresholds gave it back within 3 s (measured; neither alone did).
    await conn.run('SET GLOBAL allocator_background_threads = true');
    await conn.run("SET GLOBAL allocator_flush_threshold = '4MB'");
    await conn.run("SET GLOBAL allocator_bulk_deallocation_flush_threshold = '4MB'");
    // PostgreSQL's `/` on integers truncates (7/2 = 3); clients and BI tools rely on it.
    await conn.run('SET GLOBAL integer_division = true');
    // PostgreSQL folds an unquoted name to lower case (`count(*) AS Total` is column `total`); DuckDB keeps
    // the case as written unless told otherwise. Names are matched without regard to case either way.
    await conn.run('SET GLOBAL preserve_identifier_case = false');
    // PostgreSQL sorts NULLs as larger than any value: last ascending, first descending.
    await conn.run("SET GLOBAL default_null_order = 'nulls_last_on_asc_first_on_desc'");
    // The `||` guard (concat-guards.ts) is a macro: DuckDB counts about five levels of depth per operator
    // where it counted one, and a 200-term chain, which admission serves (analysis/expression-work.ts),
    // passed the default 1,000. Admission bounds the text's depth; this only keeps its chains bindable.
    await conn.run(`SET GLOBAL max_expression_depth = ${MAX_EXPRESSION_DEPTH}`);
    // The PostgreSQL catalog emulation is shared by every session of the instance.
    if (opts.compat !== false) await installCompat(conn, { gatewayVersion: GATEWAY_VERSION, attach: opts.catalog });
  } finally {
    conn.disconnectSync();
  }
  return instance;
}

/**
 * The directories one repository's DuckDB instance reads (engine/engines.ts), and nothing else: of a
 * local repository its `versions/` (the frozen catalogs ATTACH opens) and its data directory — not
 * its refs, settings or `sources/`; of a remote one its own area of the file cache (catalogs and
 * data files, and download temp files holding a prefix of one of them). The state directory
 * (ledgers) and other stores' areas stay out. DuckDB adds its own temp directory itself.
 */
export function engineReadDirs(
  repository: { local: { root: string; dataDir: string } } | { cacheArea: string },
): string[] {
  if ('cacheArea' in repository) return [repository.cacheArea];
  return [join(repository.local.root, 'versions'), join(repository.local.root, repository.local.dataDir)];
}

/**
 * The engine settings a session connection sets itself (search_path and schema are never locked):
 * TimeZone, and streaming_buffer_size once at connect (memory-ceiling.ts).
 */
const SESSION_SETTINGS = ['TimeZone', 'streaming_buffer_size'];

/**
 * Seal the engine once the gateway has set it up: DuckDB's file access is confined to `dirs`
 * (engineReadDirs) and its configuration is locked, so no statement — even one that slipped past
 * admission — can change threads, memory_limit, the file allowlist, external access or the temp
 * ceiling. Only TimeZone stays settable (a session's own PostgreSQL TimeZone); every session
 * connection sets it at SESSION scope (connectSession), so a global value never reaches one.
 * The lock is for the life of the process: a reload cannot widen the allowlist.
 */
export async function sealEngine(instance: DuckDBInstance, dirs: string[]): Promise<void> {
  const conn = await instance.connect();
  try {
    const list = dirs.map((d) => quoteLiteral(d.endsWith('/') ? d : d + '/')).join(', ');
    await conn.run(`SET allowed_directories = [${list}]`);
    await conn.run('SET enable_external_access = false');
    await conn.run('SET allow_community_extensions = false');
    await conn.run(`SET allowed_configs = [${SESSION_SETTINGS.map((s) => `'${s}'`).join(', ')}]`);
    await conn.run('SET lock_configuration = true');
  } finally {
    conn.disconnectSync();
  }
}

/**
 * How many DuckDB prepares run at once, process-wide. The DuckDB binding runs every call (prepare,
 * query start, each chunk fetched) as a task on libuv's thread pool, like file system calls and
 * SCRAM's key derivation; a prepare cannot be interrupted and a deep statement keeps one thread
 * busy for seconds. Without a bound, four such prepares held every thread of the default pool and
 * other sessions' statements waited for them. With it, prepares queue here (under their session's
 * statement_timeout) and the pool (8 threads, cli/threadpool.ts) always has threads for everything else.
 */
export const PREPARE_SLOTS = 5;
/**
 * Of those, how many may be heavy — a long or deeply nested text, the kind that takes seconds — so
 * an ordinary statement's prepare never queues behind them.
 */
export const HEAVY_PREPARE_SLOTS = 2;
const isHeavy = (sql: string) => sql.length > 8 * 1024 || nestingDepth(sql) > 16;

const prepareSlots = new Slots(PREPARE_SLOTS);
const heavyPrepareSlots = new Slots(HEAVY_PREPARE_SLOTS);

/**
 * Runs work that binds `sql` (its prepare, or DuckDB's plan of it) in a prepare slot, as its weight
 * asks. On a session's `connection` it is first one of its user's calls, in their share (engine-calls.ts).
 */
export function inPrepareSlot<T>(sql: string, work: () => Promise<T>, connection?: object): Promise<T> {
  // A session's prepare takes blocks of its instance's pool: it waits its turn when another fills it (memory-turns.ts).
  const instance = connection && instanceOfSession(connection as DuckDBConnection);
  if (!instance) return prepareInSlots(sql, work, connection);
  return memoryTurnsOf(instance).retriedCall(connection, () => prepareInSlots(sql, work, connection));
}

function prepareInSlots<T>(sql: string, work: () => Promise<T>, connection?: object): Promise<T> {
  const heavy = isHeavy(sql);
  // A prepare holds a thread of libuv's pool too: it counts against the session calls' budget (engine-calls.ts).
  return enginePrepare(connection, work, async () => {
    const releaseHeavy = heavy ? await heavyPrepareSlots.acquire() : () => undefined;
    try {
      const release = await prepareSlots.acquire();
      return () => (release(), releaseHeavy());
    } catch (e) {
      releaseHeavy();
      throw e;
    }
  });
}

/**
 * A connection for one client session: UTC, the cost and value guards installed, prepares in the
 * process-wide slots; an idle one of the instance when there is one (session-connections.ts), holding
 * the `baseline` variables (the first session's baseline is the instance's). Give it back with
 * endSession when the session has ended.
 */
export function connectSession(
  instance: DuckDBInstance,
  baseline?: ReadonlyMap<string, string>,
): Promise<DuckDBConnection> {
  return takeSessionConnection(instance, inPrepareSlot, baseline);
}

export { endSessionConnection as endSession } from './session-connections.js';
