/**
 * A session's protocol objects by name: prepared statements (Parse and SQL PREPARE share the
 * namespace; '' is the unnamed one) and portals (Bind and SQL DECLARE share theirs), with the
 * protocol's checks on naming and binding them. Each object is released exactly once as it goes.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { disposeStatement, type PreparedStmt } from '../session/plan.js';
import { roomForPortal, roomForStatement, type NamedLimits } from '../session/named-limits.js';
import { paramBytes, roomForParams } from './held-bytes.js';
import { dropPortal, expandFormats, newPortal, type Portal } from './portal.js';

export class ProtocolObjects {
  readonly statements = new Map<string, PreparedStmt>();
  readonly portals = new Map<string, Portal>();

  /** Caps on named statements (Parse, PREPARE) and named portals (Bind, DECLARE): each holds a DuckDB prepared statement. */
  caps: NamedLimits = {};

  roomForStatement(name: string, text = ''): void {
    roomForStatement(this.statements, name, this.caps, text);
  }

  roomForPortal(name: string): void {
    roomForPortal(this.portals, name, this.caps);
  }

  statement(name: string): PreparedStmt {
    const s = this.statements.get(name);
    if (!s) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${name}" does not exist`);
    return s;
  }

  portal(name: string): Portal {
    const p = this.portals.get(name);
    if (!p) throw new SqlError(SQLSTATE.invalidCursorName, `portal "${name}" does not exist`);
    return p;
  }

  /** Parse may name a statement only once (the unnamed one is replaced). */
  checkStatementName(name: string, text = ''): void {
    if (name !== '' && this.statements.has(name))
      throw new SqlError(SQLSTATE.duplicatePreparedStatement, `prepared statement "${name}" already exists`);
    this.roomForStatement(name, text);
  }

  /** Keep `prepared` under `name`, releasing what was there. */
  setStatement(name: string, prepared: PreparedStmt): void {
    const old = this.statements.get(name);
    if (old) disposeStatement(old);
    this.statements.set(name, prepared);
  }

  /** Bind: a portal of a named statement, its parameters and formats checked as PostgreSQL does. */
  bind(
    portalName: string,
    statementName: string,
    paramFormats: number[],
    params: (Buffer | null)[],
    resultFormats: number[],
  ): void {
    const prepared = this.statement(statementName);
    if (params.length !== prepared.paramOids.length) {
      throw new SqlError(
        SQLSTATE.protocolViolation,
        `bind message supplies ${params.length} parameters, but prepared statement "${statementName}" requires ${prepared.paramOids.length}`,
      );
    }
    if (paramFormats.length > 1 && paramFormats.length !== params.length) {
      throw new SqlError(
        SQLSTATE.protocolViolation,
        `bind message has ${paramFormats.length} parameter formats but ${params.length} parameters`,
      );
    }
    const ncols = prepared.fields?.length ?? 0;
    // A FETCH's columns are its cursor's, an EXECUTE's its statement's, known when it runs: its formats are kept as sent.
    const fetch = prepared.stmt.kind === 'fetch' || prepared.stmt.kind === 'executeSql';
    if (!fetch && resultFormats.length > 1 && resultFormats.length !== ncols) {
      throw new SqlError(
        SQLSTATE.protocolViolation,
        `bind message has ${resultFormats.length} result formats but query has ${ncols} columns`,
      );
    }
    const existing = this.portals.get(portalName);
    if (existing && portalName !== '')
      throw new SqlError(SQLSTATE.duplicateCursor, `cursor "${portalName}" already exists`);
    this.roomForPortal(portalName);
    roomForParams(this.portals, existing, paramBytes(params));
    if (existing) dropPortal(existing);
    this.portals.set(
      portalName,
      newPortal(
        prepared,
        params,
        paramFormats,
        fetch ? (resultFormats as (0 | 1)[]) : expandFormats(resultFormats, ncols),
      ),
    );
  }

  dropStatements(names: Iterable<string>): void {
    for (const name of names) {
      const s = this.statements.get(name);
      if (!s) continue;
      disposeStatement(s);
      this.statements.delete(name);
    }
  }

  dropPortals(names: Iterable<string>): void {
    for (const name of names) {
      const p = this.portals.get(name);
      if (!p) continue;
      dropPortal(p);
      this.portals.delete(name);
    }
  }

  /** The session ends: everything goes. */
  clear(): void {
    this.dropPortals([...this.portals.keys()]);
    this.dropStatements([...this.statements.keys()]);
  }
}
