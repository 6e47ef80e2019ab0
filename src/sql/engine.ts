/**
 * The one DuckDB instance of a gateway process: created with the engine settings every session
 * shares (UTC, bounded memory and threads, a private temp directory).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { installCompat } from './compat/index.js';

export const GATEWAY_VERSION = '0.1.0';

export interface EngineOptions {
  memoryLimit?: string;
  threads?: number;
  tempDirectory?: string;
  maxTempDirectorySize?: string;
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
    // DuckDB's decorrelation of scalar subqueries over the catalog views (psql's \dT) can see
    // duplicate rows PostgreSQL never would; take the first, as DuckDB did before 1.3.
    await conn.run('SET GLOBAL scalar_subquery_error_on_multiple_rows = false');
    // PostgreSQL's `/` on integers truncates (7/2 = 3); clients and BI tools rely on it.
    await conn.run('SET GLOBAL integer_division = true');
    // The PostgreSQL catalog emulation is shared by every session of the instance.
    await installCompat(conn, { gatewayVersion: GATEWAY_VERSION });
  } finally {
    conn.disconnectSync();
  }
  return instance;
}

/**
 * Confine DuckDB's file access to `dirs` (the local repositories and the cache). Once
 * enable_external_access is off it cannot be turned back on, and client statements never reach
 * DuckDB's SET/PRAGMA (sessions answer or refuse them), so the setting holds for the process.
 */
export async function restrictFileAccess(instance: DuckDBInstance, dirs: string[]): Promise<void> {
  const conn = await instance.connect();
  try {
    const list = dirs.map((d) => `'${(d.endsWith('/') ? d : d + '/').replace(/'/g, "''")}'`).join(', ');
    await conn.run(`SET allowed_directories = [${list}]`);
    await conn.run('SET enable_external_access = false');
    await conn.run('SET allow_community_extensions = false');
  } finally {
    conn.disconnectSync();
  }
}
