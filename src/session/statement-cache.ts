/**
 * A session's prepared statements by text. Statements repeat (dashboards, pgbench, and drivers that
 * send every parameterized query as an unnamed Parse): the DuckDB prepared statement is kept by text
 * and declared parameter types, so an unnamed statement costs what a named one does. Only statements
 * that read the session's own version (and pin no remote files) are kept, and the cache is emptied whenever the session moves
 * to another version (the caller's job: clear).
 */
import { LRUCache } from 'lru-cache';
import { commentShape } from '../text/comment-shape.js';
import { disposeStatement, type PreparedStmt } from './plan.js';

/** Statements kept per session. */
const STATEMENTS_KEPT = 64;

export class StatementCache {
  private readonly entries = new LRUCache<string, PreparedStmt>({
    max: STATEMENTS_KEPT,
    dispose: (p) => disposeStatement(p),
  });
  /** A kept statement's key by its text's comment shape (text/comment-shape.ts), for texts with comments. */
  private readonly byShape = new LRUCache<string, string>({ max: STATEMENTS_KEPT });

  /** The kept statement for exactly this text and declared types (no reference taken), or undefined. */
  get(text: string, declaredTypes: readonly number[]): PreparedStmt | undefined {
    return this.entries.get(statementKey(text, declaredTypes));
  }

  /** Keep a statement just planned, if it may be kept (the cache takes its own reference). */
  offer(prepared: PreparedStmt): void {
    if (!isKeepable(prepared)) return;
    prepared.refs++;
    const key = statementKey(prepared.sql, prepared.declaredTypes);
    this.entries.set(key, prepared);
    const shape = commentShape(prepared.sql);
    if (shape !== null) this.byShape.set(statementKey(shape, prepared.declaredTypes), key);
  }

  /**
   * The kept statement whose text differs from `text` only inside comments, with the same declared
   * types (no reference taken), or undefined. Whether it may run for `text` is comment-sharing.ts'.
   */
  getByShape(text: string, declaredTypes: readonly number[]): PreparedStmt | undefined {
    const shape = commentShape(text);
    if (shape === null) return undefined;
    const key = this.byShape.get(statementKey(shape, declaredTypes));
    return key === undefined ? undefined : this.entries.get(key);
  }

  /**
   * Forget this statement if it is the one kept: a run that failed or was interrupted leaves DuckDB's
   * operator state (its memory and temp files) inside the prepared statement until it is destroyed.
   */
  forget(prepared: PreparedStmt): void {
    prepared = prepared.sharedFrom ?? prepared; // a shared plan failed in the planned one's DuckDB statement
    const key = statementKey(prepared.sql, prepared.declaredTypes);
    if (this.entries.peek(key) === prepared) this.entries.delete(key);
  }

  /** The statements kept (no reference taken). */
  values(): IterableIterator<PreparedStmt> {
    return this.entries.values();
  }

  /** Forget everything (each statement is released as it goes). */
  clear(): void {
    this.entries.clear();
    this.byShape.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * A statement may be kept when DuckDB prepared it against the session's own version only: no pinned
 * "NAME@REF" versions, and no fdl.* system view (their rows are the session's state at planning).
 */
export function isKeepable(prepared: PreparedStmt): boolean {
  // a statement over a remote version's files is planned afresh each time: its pins end with it
  const holdsFiles = !!prepared.holds?.length || !!prepared.fetchOnBind;
  // a plan that only describes a statement needing its values (value-plans.ts) is kept too: Parse repeats
  const planned = prepared.duck !== null || prepared.valuesNeeded !== undefined;
  return planned && prepared.leases.length === 0 && !holdsFiles && !prepared.systemViews;
}

/**
 * The cache's key: the statement's text and the parameter types its Parse declared. A type 0 is
 * "unspecified", as a type not sent: planning reads both alike (`declaredTypes[n - 1] || …`), so
 * trailing zeros are not part of the signature (`[0, 0]` from one driver, `[]` from another).
 */
function statementKey(text: string, declaredTypes: readonly number[]): string {
  let n = declaredTypes.length;
  while (n > 0 && declaredTypes[n - 1] === 0) n--;
  return n === 0 ? text : `${text}\u0000${declaredTypes.slice(0, n).join(',')}`;
}
