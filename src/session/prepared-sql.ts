/**
 * SQL-level prepared statements: PREPARE, EXECUTE, DEALLOCATE and DISCARD ALL as PostgreSQL answers
 * them. They share one namespace with the protocol's named statements (as in PostgreSQL); the wire
 * keeps that map, this module reads it and returns what to do as a value. The two DuckDB look-ups
 * (PREPARE's type names, EXECUTE's argument expressions) run admitted statements only.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import type { Statement } from '../text/classify.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';
import { OID, pgFieldFor } from '../pg/oids.js';
import { innerQuery, type QueryStatement } from './cursors.js';
import { disposeStatement, preparedDuck, type PreparedStmt } from './plan.js';

/** What the interpreter reads of a prepared statement: how many parameters it takes. */
export interface NamedStatement {
  readonly paramOids: readonly number[];
}

/** PREPARE name [(types)] AS query: the name must be free and the statement a query. */
export function interpretPrepare(
  stmt: Extract<Statement, { kind: 'prepareSql' }>,
  statements: ReadonlyMap<string, unknown>,
): { name: string; query: string; stmt: QueryStatement; types: string[] } {
  if (statements.has(stmt.name))
    throw new SqlError(SQLSTATE.duplicatePreparedStatement, `prepared statement "${stmt.name}" already exists`);
  return { name: stmt.name, query: stmt.query, stmt: innerQuery(stmt.query, 'PREPARE'), types: stmt.types };
}

/** EXECUTE name [(args)]: the statement must exist and take exactly that many parameters. */
export function interpretExecute<S extends NamedStatement>(
  stmt: Extract<Statement, { kind: 'executeSql' }>,
  statements: ReadonlyMap<string, S>,
): S {
  const target = statements.get(stmt.name);
  if (!target) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${stmt.name}" does not exist`);
  if (stmt.args.length !== target.paramOids.length) {
    throw new SqlError(
      SQLSTATE.syntaxError,
      `wrong number of parameters for prepared statement "${stmt.name}"`,
      `Expected ${target.paramOids.length} parameters but got ${stmt.args.length}.`,
    );
  }
  return target;
}

/** DEALLOCATE [ALL]: the names to drop (never `running`, the statement executing this one). */
export function interpretDeallocate<S>(
  stmt: Extract<Statement, { kind: 'deallocate' }>,
  statements: ReadonlyMap<string, S>,
  running?: S,
): { names: string[]; tag: 'DEALLOCATE' | 'DEALLOCATE ALL' } {
  if (stmt.name === null) return { names: othersThan(statements, running), tag: 'DEALLOCATE ALL' };
  if (!statements.has(stmt.name))
    throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${stmt.name}" does not exist`);
  return { names: [stmt.name], tag: 'DEALLOCATE' };
}

/** DISCARD ALL: refused inside a block; otherwise every other statement goes (and settings reset). */
export function interpretDiscardAll<S>(statements: ReadonlyMap<string, S>, inBlock: boolean, running?: S): string[] {
  if (inBlock) throw new SqlError(SQLSTATE.activeTransaction, 'DISCARD ALL cannot run inside a transaction block');
  return othersThan(statements, running);
}

function othersThan<S>(statements: ReadonlyMap<string, S>, running: S | undefined): string[] {
  return [...statements].filter(([, s]) => s !== running).map(([name]) => name);
}

/** PREPARE's type names DuckDB does not read as PostgreSQL means them. */
const PG_ONLY_TYPES: ReadonlyMap<string, number> = new Map([
  ['bpchar', OID.bpchar],
  ['jsonb', OID.jsonb],
]);

/** PostgreSQL type names of a PREPARE (checked against a strict pattern in classify) as OIDs, as DuckDB reads them. */
export async function declaredTypeOids(conn: DuckDBConnection, types: readonly string[]): Promise<number[]> {
  if (types.length === 0) return [];
  // the PostgreSQL types DuckDB has no name for (jsonb) or reads as another (bpchar as VARCHAR): a declared
  // bpchar or jsonb parameter means what it does in Parse (pg/declared-casts.ts)
  const own = types.map((t) =>
    PG_ONLY_TYPES.get(
      t
        .trim()
        .toLowerCase()
        .replace(/^pg_catalog\./, ''),
    ),
  );
  const asked = types.filter((_, i) => own[i] === undefined);
  if (asked.length === 0) return own as number[];
  let duck: Awaited<ReturnType<DuckDBConnection['prepare']>> | null = null;
  try {
    duck = await conn.prepare(`SELECT ${asked.map((t) => `NULL::${t}`).join(', ')}`);
    const d = duck;
    let next = 0;
    return own.map((oid) => oid ?? pgFieldFor(d.columnType(next++)).oid);
  } catch (e) {
    throw fromDuckDB(e);
  } finally {
    duck?.destroySync();
  }
}

/**
 * EXECUTE's arguments as PostgreSQL-style text parameters: one SELECT of them, planned by `prepare`
 * (the session's one pipeline: analysis and admission like any statement) and run at once.
 */
export async function evaluateArguments(
  args: readonly string[],
  prepare: (text: string) => Promise<PreparedStmt>,
): Promise<(Buffer | null)[]> {
  if (args.length === 0) return [];
  const prepared = await prepare(argumentsQuery(args));
  const owner = prepared.sharedFrom ?? prepared;
  try {
    // not let go for another statement of the user's while it runs (handle-budget.ts)
    const duck = await preparedDuck(prepared);
    owner.starting = true;
    const reader = await duck.runAndReadAll();
    return argumentValues(args, reader.getRows()[0] ?? []);
  } catch (e) {
    throw fromDuckDB(e);
  } finally {
    owner.starting = false;
    disposeStatement(prepared);
  }
}

/** EXECUTE's arguments as one query, each cast to text for the parameters. */
export function argumentsQuery(args: readonly string[]): string {
  return `SELECT ${args.map((a) => `CAST((${a}) AS TEXT)`).join(', ')}`;
}

/** The row argumentsQuery returned, as text-format parameter values. */
export function argumentValues(args: readonly string[], row: readonly unknown[]): (Buffer | null)[] {
  return args.map((_, i) => (row[i] === null || row[i] === undefined ? null : Buffer.from(String(row[i]))));
}
