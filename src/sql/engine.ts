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
}

export async function createEngine(opts: EngineOptions = {}): Promise<DuckDBInstance> {
  const config: Record<string, string> = {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  };
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (opts.threads) config.threads = String(opts.threads);
  if (opts.tempDirectory) config.temp_directory = opts.tempDirectory;
  const instance = await DuckDBInstance.create(':memory:', config);
  // TimeZone belongs to the ICU extension, which is only there once the instance exists.
  const conn = await instance.connect();
  try {
    await conn.run("SET GLOBAL TimeZone = 'UTC'");
    // The PostgreSQL catalog emulation is shared by every session of the instance.
    await installCompat(conn, { gatewayVersion: GATEWAY_VERSION });
  } finally {
    conn.disconnectSync();
  }
  return instance;
}
