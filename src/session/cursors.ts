/**
 * The SQL cursor interpreter: DECLARE, FETCH, MOVE and CLOSE as PostgreSQL answers them, and which
 * portals a transaction's end closes. Cursors and the protocol's portals share one namespace (as in
 * PostgreSQL); the wire keeps them, this module only reads them and returns what to do as a value
 * (the wire starts the query, streams the rows, drops the portals). No sockets: unit-tested directly.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { classify, type FetchDirection, type Statement } from '../text/classify.js';

export type QueryStatement = Extract<Statement, { kind: 'query' }>;
export type CursorStatement = Extract<Statement, { kind: 'declare' | 'fetch' | 'closeCursor' }>;

/**
 * What the interpreter reads of a portal: whether it is an SQL cursor, one WITH HOLD, and the
 * transaction scopes it was declared in (session/transaction.ts `scopes`; none: committed already).
 */
export interface CursorEntry {
  readonly cursor?: { readonly hold: boolean; readonly scopes?: readonly number[] };
}

export type CursorAction<P> =
  /** Start `query` (classified: `stmt`) as a new cursor `name` (it owns its own prepared statement). */
  | {
      kind: 'declare';
      name: string;
      query: string;
      stmt: QueryStatement;
      hold: boolean;
      scroll: boolean;
      binary: boolean;
      tag: 'DECLARE CURSOR';
    }
  /** Send (or, for MOVE, pass over) the rows `direction` reaches (session/cursor-moves.ts); tag: fetchTag. */
  | { kind: 'fetch'; name: string; cursor: P; direction: FetchDirection; move: boolean }
  /** Drop these portals. */
  | { kind: 'close'; names: string[]; tag: 'CLOSE CURSOR' | 'CLOSE CURSOR ALL' };

/** The query a DECLARE or PREPARE names: refused statements keep their SQLSTATE; only a query may be named. */
export function innerQuery(text: string, what: 'DECLARE CURSOR' | 'PREPARE'): QueryStatement {
  const inner = classify(text);
  if (inner.kind === 'refused') throw new SqlError(inner.sqlstate, inner.message, undefined, inner.hint);
  if (inner.kind !== 'query') throw new SqlError(SQLSTATE.syntaxError, `${what} needs a query`);
  return inner;
}

/**
 * Decide a cursor statement against the portals open now. `running` is the portal executing this
 * statement itself (CLOSE ALL leaves it alone).
 */
export function interpretCursor<P extends CursorEntry>(
  stmt: CursorStatement,
  portals: ReadonlyMap<string, P>,
  inBlock: boolean,
  running?: P,
): CursorAction<P> {
  switch (stmt.kind) {
    case 'declare':
      if (!inBlock && !stmt.hold)
        throw new SqlError(SQLSTATE.noActiveTransaction, 'DECLARE CURSOR can only be used in transaction blocks');
      if (portals.has(stmt.name)) throw new SqlError(SQLSTATE.duplicateCursor, `cursor "${stmt.name}" already exists`);
      return {
        kind: 'declare',
        name: stmt.name,
        query: stmt.query,
        stmt: innerQuery(stmt.query, 'DECLARE CURSOR'),
        hold: stmt.hold,
        scroll: stmt.scroll,
        binary: stmt.binary,
        tag: 'DECLARE CURSOR',
      };
    case 'fetch': {
      const cursor = portals.get(stmt.name);
      // Any named portal, as in PostgreSQL: a DECLAREd cursor or one the protocol's Bind opened.
      if (!cursor || stmt.name === '')
        throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${stmt.name}" does not exist`);
      return { kind: 'fetch', name: stmt.name, cursor, direction: stmt.direction, move: stmt.move };
    }
    case 'closeCursor': {
      if (stmt.name === null) {
        const names = [...portals].filter(([, p]) => p !== running).map(([name]) => name);
        return { kind: 'close', names, tag: 'CLOSE CURSOR ALL' };
      }
      if (!portals.has(stmt.name))
        throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${stmt.name}" does not exist`);
      return { kind: 'close', names: [stmt.name], tag: 'CLOSE CURSOR' };
    }
  }
}

/** CommandComplete of FETCH / MOVE: how many rows were sent or skipped. */
export function fetchTag(move: boolean, rows: number): string {
  return `${move ? 'MOVE' : 'FETCH'} ${rows}`;
}

/**
 * The portals a transaction's end closes: all but cursors declared WITH HOLD; when it was rolled back
 * (`aborted`: its scope), those declared WITH HOLD inside it too — PostgreSQL keeps a holdable cursor
 * only once the transaction that declared it commits.
 */
export function closingAtTransactionEnd<P extends CursorEntry>(
  portals: ReadonlyMap<string, P>,
  aborted?: number,
): string[] {
  const names: string[] = [];
  for (const [name, p] of portals) if (!p.cursor?.hold || declaredIn(p, aborted)) names.push(name);
  return names;
}

/** The cursors ROLLBACK TO SAVEPOINT drops: those declared since the savepoint was set (`aborted`: its scope). */
export function closingAtRollbackTo<P extends CursorEntry>(portals: ReadonlyMap<string, P>, aborted: number): string[] {
  return [...portals].filter(([, p]) => declaredIn(p, aborted)).map(([name]) => name);
}

function declaredIn(p: CursorEntry, scope: number | undefined): boolean {
  return scope !== undefined && (p.cursor?.scopes?.includes(scope) ?? false);
}
