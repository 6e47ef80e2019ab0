import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import {
  countedFiles,
  countedRows,
  countingStatement,
  countingTableSql,
  tableContext,
  type LakeCatalog,
  type LakeTable,
  type ReadBytes,
} from '../lake/index.js';
import { Slots } from '../serial.js';

/**
 * Counting statements over a local version (`SELECT count(*) FROM t`, lake/count-only.ts): data
 * files that need no row filter stand as their catalog record counts, the others (deletes,
 * rows newer than the snapshot) and inlined rows are read as the table's view reads them. The
 * counting relation of a table is built once (the version is frozen); one connection, one
 * statement at a time.
 */
export function localCounting(
  engine: DuckDBInstance,
  catalog: LakeCatalog,
  locate: (rel: string) => string,
  /** Tables built as native DuckDB tables (native-tables.ts): counted by DuckDB from the table itself, no file read. */
  native: ReadonlySet<LakeTable> = new Set(),
  /** How a deletion vector is read (hashed as read: the counting SQL is kept for the version's life). */
  readBytes?: ReadBytes,
) {
  let conn: Promise<DuckDBConnection> | null = null;
  // one statement at a time on the connection
  const turns = new Slots();
  const sources = new Map<LakeTable, Promise<string | null>>();
  const source = (c: DuckDBConnection, t: LakeTable): Promise<string | null> => {
    let s = sources.get(t);
    if (!s) {
      s = (async () => {
        if (native.has(t)) return null;
        const counted = countedFiles(t, catalog.snapshotId);
        if (counted.length === 0) return null;
        const skip = new Set(counted.map((f) => f.id));
        const read = new Set(t.dataFiles.filter((f) => !skip.has(f.id)).map((f) => f.id));
        const ctx = await tableContext(c, catalog, [t], locate, read, readBytes);
        return countingTableSql(t, ctx, read, countedRows(counted, catalog.snapshotId));
      })();
      s.catch(() => sources.delete(t));
      sources.set(t, s);
    }
    return s;
  };
  return {
    statement(sql: string, searchSchemas: readonly string[], dbName: string): Promise<string | null> {
      // a cheap look first: most statements, counts with a filter among them, are never parsed here
      if (
        !/count\s*\(\s*\*\s*\)/i.test(sql) ||
        /\b(where|group|having|join|limit|union|qualify|order|with)\b/i.test(sql)
      )
        return Promise.resolve(null);
      return turns.run(async () => {
        const c = await (conn ??= engine.connect());
        return countingStatement(c, sql, catalog, searchSchemas, dbName, (t) => source(c, t));
      });
    },
    async dispose() {
      await turns.idle();
      if (conn) (await conn).disconnectSync();
    },
  };
}

export type LocalCounting = ReturnType<typeof localCounting>;
