/**
 * DDL composed from a catalog's own text (a view's SQL, a macro's body and defaults) runs as exactly
 * one CREATE statement, as DuckDB itself splits the text. The catalog is the publisher's (or a
 * store writer's) input: pasted into `conn.run`, which runs every `;`-separated statement, a view
 * `SELECT 1; COPY … TO …` or `…; CREATE OR REPLACE MACRO fdl_pg…` ran with the gateway's rights
 * while a version was opened. Anything else than one CREATE is refused before any of it runs.
 */
import { StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';

export async function runOneCreate(conn: DuckDBConnection, sql: string, what: string): Promise<void> {
  const statements = await conn.extractStatements(sql);
  if (statements.count !== 1) throw notOneCreate(what, `${statements.count} statements`);
  const prepared = await statements.prepare(0);
  try {
    if (prepared.statementType !== StatementType.CREATE)
      throw notOneCreate(what, `a ${StatementType[prepared.statementType] ?? 'other'} statement`);
    await prepared.run();
  } finally {
    prepared.destroySync();
  }
}

function notOneCreate(what: string, found: string): SqlError {
  return new SqlError(
    SQLSTATE.dataCorrupted,
    `${what}: the catalog's SQL makes ${found}, not one CREATE: it is not created`,
  );
}

/**
 * Why a view's SQL (catalog placeholders already replaced) is not exactly one SELECT, by DuckDB's own
 * parse (json_serialize_sql serialises SELECT statements only); null when it is. The publisher's
 * commands refuse such a catalog before the gateway ever has to skip the view.
 */
export async function notOneSelect(conn: DuckDBConnection, sql: string): Promise<string | null> {
  const reader = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const parsed = JSON.parse(String(reader.getRows()[0]![0])) as {
    error?: boolean;
    error_message?: string;
    statements?: unknown[];
  };
  if (parsed.error) return parsed.error_message ?? 'not a SELECT';
  const n = parsed.statements?.length ?? 0;
  return n === 1 ? null : `${n} statements, not one SELECT`;
}
