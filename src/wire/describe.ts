/**
 * Describe's answers: a statement's ParameterDescription, and a statement's or portal's RowDescription
 * or NoData. A FETCH describes the rows of the cursor it reads, an SQL EXECUTE those of the statement
 * it runs (as PostgreSQL's UtilityTupleDescriptor does; a portal's in the formats it was bound with); a portal
 * whose columns are typed only by its bound parameters is started to be described, so the description
 * matches what Execute sends.
 */
import type { PreparedStmt } from '../session/plan.js';
import * as be from './backend.js';
import { cursorFields } from './cursor-rows.js';
import { expandFormats, portalFields, type Portal } from './portal.js';
import type { PortalRunner } from './portal-runner.js';
import type { Writer } from './writer.js';

/** The session's named objects Describe may look through (wire/protocol-objects.ts). */
export interface Described {
  readonly statements: ReadonlyMap<string, PreparedStmt>;
  readonly portals: ReadonlyMap<string, Portal>;
}

export function describeStatement(w: Writer, prepared: PreparedStmt, named: Described): void {
  be.parameterDescription(w, prepared.paramOids);
  const cursor = fetched(prepared, named.portals);
  const target = executed(prepared, named.statements);
  if (cursor) be.rowDescription(w, cursorFields(cursor, []));
  else if (target) be.rowDescription(w, target.fields!);
  else if (prepared.fields && prepared.fields.length > 0 && prepared.stmt.kind !== 'copyOut')
    be.rowDescription(w, prepared.fields);
  else be.noData(w);
}

/** A promise only when the portal must be started to know its columns. */
export function describePortal(
  w: Writer,
  portal: Portal,
  named: Described,
  runner: PortalRunner,
): Promise<void> | undefined {
  const cursor = fetched(portal.prepared, named.portals);
  if (cursor) {
    be.rowDescription(w, cursorFields(cursor, expandFormats(portal.resultFormats, cursor.prepared.columnTypes.length)));
    return undefined;
  }
  const target = executed(portal.prepared, named.statements);
  if (target) {
    // in the formats the EXECUTE portal was bound with, as PostgreSQL sends its rows
    const formats = expandFormats(portal.resultFormats, target.fields!.length);
    be.rowDescription(
      w,
      target.fields!.map((f, i) => ({ ...f, format: formats[i] ?? 0 })),
    );
    return undefined;
  }
  const fields = portal.prepared.fields;
  if (!fields || fields.length === 0 || portal.prepared.stmt.kind === 'copyOut') {
    be.noData(w);
    return undefined;
  }
  // Columns typed only by the bound parameters: the result cache's answer (recorded from a run described
  // as planned), or run the portal now and describe what it yields.
  if (portal.prepared.untyped.size > 0 && !portal.result && !portal.done) {
    return runner.startDescribed(portal).then(() => be.rowDescription(w, portalFields(portal)));
  }
  be.rowDescription(w, portalFields(portal));
  return undefined;
}

/** The cursor a FETCH (not MOVE) reads, if it exists now: its rows are what the FETCH describes. */
function fetched(prepared: PreparedStmt, portals: ReadonlyMap<string, Portal>): Portal | undefined {
  const stmt = prepared.stmt;
  if (stmt.kind !== 'fetch' || stmt.move) return undefined;
  const cursor = portals.get(stmt.name);
  return cursor && stmt.name !== '' && cursor.prepared.stmt.kind === 'query' && cursor.prepared.fields?.length
    ? cursor
    : undefined;
}

/** The statement an SQL EXECUTE runs, if it exists now and returns rows: its rows are what the EXECUTE describes. */
function executed(prepared: PreparedStmt, statements: ReadonlyMap<string, PreparedStmt>): PreparedStmt | undefined {
  const stmt = prepared.stmt;
  if (stmt.kind !== 'executeSql') return undefined;
  const target = statements.get(stmt.name);
  return target && target.stmt.kind === 'query' && target.fields?.length ? target : undefined;
}
