/**
 * What a fresh gateway's first client would otherwise wait for, done at start (issue 24): each
 * repository's first session connection, its guard macros installed (engine/session-connections.ts,
 * then idle in its instance's pool for the first session to take), and the process-wide sets
 * admission reads at a first statement (analysis/containment.ts: the callable built-ins, the
 * emulation's relations). Each is computed once per process (or per instance) from DuckDB's catalog
 * by the same calls a session makes; here no version is attached yet, so the set of every known
 * function name holds the engine's and the emulation's alone, not the macros of whichever version a
 * first session happened to open. Measured on a loaded 2-core machine, these were 1.5–2.5 s of a fresh
 * gateway's first connection and first statement (docs/performance.md, session 55).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { allowedFunctions, relationsOf } from './analysis/containment.js';
import { COMPAT_DB } from './pg/catalog/names.js';

/** How a session's DuckDB connection is taken and given back for `repo` (gateway.ts: the wire's own). */
export interface SessionConnections {
  connect(repo: string): Promise<DuckDBConnection>;
  end(conn: DuckDBConnection): Promise<void>;
}

/** Take and give back one session connection per repository, and read admission's sets on the first. */
export async function warmSessions(repos: Iterable<string>, sessions: SessionConnections): Promise<void> {
  let first = true;
  for (const repo of repos) {
    const conn = await sessions.connect(repo);
    try {
      if (first) {
        await allowedFunctions(conn);
        await relationsOf(conn, COMPAT_DB);
        first = false;
      }
    } finally {
      await sessions.end(conn);
    }
  }
}
