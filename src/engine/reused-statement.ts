/**
 * A fixed statement of the gateway's own that it runs with new values over and over on a connection
 * (DuckDB's parse of a text for the analysis, its plan of one for the engine line): prepared once per
 * connection instead of at every call. `runAndReadAll(sql, values)` extracts, prepares (parses, binds
 * and plans the wrapper itself), binds and runs: for a short text the wrapper's own prepare was half
 * of the parse's cost. Each run is one DuckDB call: the row is read from the materialized result. Runs on one connection's statement take turns, since the bound values are the
 * statement's state. The statement goes with its connection (disconnect destroys what it prepared).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { Slots } from '../serial.js';

interface Held {
  statement: Promise<DuckDBPreparedStatement>;
  turns: Slots;
}

export class ReusedStatement {
  private readonly byConnection = new WeakMap<DuckDBConnection, Held>();

  /** `sql` takes VARCHAR parameters $1…$n and returns one row. */
  constructor(private readonly sql: string) {}

  /**
   * The first row of the statement run on `conn` with `values` bound as VARCHAR, in order; the run
   * (not the one-time prepare, which takes its own slot on a session's connection) inside `around`.
   */
  async firstRow(
    conn: DuckDBConnection,
    values: readonly string[],
    around: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
  ): Promise<readonly unknown[]> {
    const held = this.held(conn);
    const statement = await held.statement;
    return held.turns.run(() =>
      around(async () => {
        values.forEach((v, i) => statement.bindVarchar(i + 1, v));
        try {
          // Materialized in the one call that runs it: its first chunk is read in place, where
          // reading it as a stream took two more calls (the chunk, then the end), each a hop
          // through libuv's pool and back.
          const result = await statement.run();
          const chunk = result.chunkCount > 0 ? result.getChunk(0) : null;
          return chunk && chunk.rowCount > 0 ? chunk.getRowValues(0) : [];
        } finally {
          statement.clearBindings();
        }
      }),
    );
  }

  private held(conn: DuckDBConnection): Held {
    let held = this.byConnection.get(conn);
    if (!held) {
      const statement = conn.prepare(this.sql);
      // a failed prepare is not kept: the next call prepares again
      statement.catch(() => this.byConnection.delete(conn));
      held = { statement, turns: new Slots() };
      this.byConnection.set(conn, held);
    }
    return held;
  }
}
