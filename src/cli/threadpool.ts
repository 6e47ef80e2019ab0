/**
 * Imported first by the command line: libuv sizes its thread pool once, at its first use, from
 * UV_THREADPOOL_SIZE. The DuckDB binding runs prepares, query starts and chunk fetches there, next
 * to file system calls and SCRAM's key derivation; the default 4 threads were held by four slow
 * prepares. 8 threads with at most ENGINE_CALL_SLOTS (6, of which maxEngineCallsPerUser, 2 by default, per user; engine/engine-calls.ts) DuckDB calls
 * at once, prepares included, leave two for everything else. An operator's own UV_THREADPOOL_SIZE wins.
 */
export const LIBUV_THREADPOOL_SIZE = 8;

process.env.UV_THREADPOOL_SIZE ??= String(LIBUV_THREADPOOL_SIZE);
