/**
 * DuckDB's type ids without DuckDB: the text thread (engine/text-thread.ts) rewrites with the modules
 * that read them (oids.ts, shown-numeric.ts), and the package's index loads DuckDB's native library
 * (≈ 0.7 s of CPU and ≈ 30 MiB a thread) that a rewrite never calls. The enum's own file is the same
 * object the index exports, so values compare equal on either path.
 */
export { DuckDBTypeId } from '@duckdb/node-api/lib/DuckDBTypeId.js';
