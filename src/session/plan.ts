/**
 * The plan value: what planning (planner.ts) reads from the session, the planned statement the wire
 * runs (the protocol's "prepared statement"), and its owners' references: the last one destroys
 * DuckDB's statement and releases the versions and files it holds.
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBType } from '@duckdb/node-api';
import type { Statement } from '../text/classify.js';
import type { Analysis } from '../analysis/analysis.js';
import type { SystemTable } from '../text/system-views.js';
import type { StatementHold, VersionLease, VersionReads, VersionSource } from '../versions/lease.js';
import type { FieldDescription } from '../pg/oids.js';
import type { SessionSettings } from './settings.js';
import type { ResultKey } from '../cache/result-cache.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { spent, stageClock } from '../stages.js';
import type { NeededValue } from '../pg/param-values.js';

/** What planning reads from the session. */
export interface PlanningContext {
  readonly conn: DuckDBConnection;
  readonly versions: VersionSource;
  readonly repo: string;
  readonly user: string;
  /** The session's own version. */
  readonly lease: VersionLease | null;
  readonly settings: SessionSettings;
  /** Whether the session has a result cache (plans then say which results it may keep). */
  readonly cachesResults: boolean;
  /** fdl.session's one row, as the session sees itself now. */
  sessionTable(): SystemTable;
  /** A NOTICE for the client (file pruning). */
  notice(message: string): void;
  /** Where the plans' DuckDB statements count: the user's budget across sessions (session/handle-budget.ts). */
  readonly handles?: HandleBudget;
}

/** A planned statement (the "prepared statement" of the protocol). */
export interface PreparedStmt {
  /** Owners: the statement cache, named statements, a running simple Query (see disposeStatement). */
  refs: number;
  sql: string;
  stmt: Statement;
  declaredTypes: number[];
  /** DuckDB prepared statement for queries; null for gateway-handled statements. */
  duck: DuckDBPreparedStatement | null;
  paramOids: number[];
  fields: FieldDescription[] | null;
  columnTypes: DuckDBType[];
  /** Per column: the catalog type OID to announce and encode with (catalog queries only). */
  columnOids: (number | undefined)[];
  /** Other versions the statement reads ("demo@v1"), held while the statement exists. */
  leases: VersionLease[];
  /** Remote versions' files the statement reads, pinned while it exists (versions/lease.ts). */
  holds?: StatementHold[];
  /** What the statement can read of each version (by database, lower-cased): what is re-checked before it runs. */
  reads?: ReadonlyMap<string, VersionReads>;
  /**
   * A statement over remote versions: before each execution its views are made right for it again
   * (readyViews). With parameters (`perValues`), files are chosen with the bound values and DuckDB
   * prepares it again over them whenever the views changed.
   */
  fetchOnBind?: {
    perValues: boolean;
    sql: string;
    reads: TableReads;
    prepare: () => Promise<DuckDBPreparedStatement>;
    /** The views (StatementHold.views, per version) `duck` was last prepared over under their lock. */
    views?: readonly (number | undefined)[];
  };
  /** DuckDB's prepare of the statement again, as planned (engine/memory-turns.ts: its state let go). */
  prepareAgain?: () => Promise<DuckDBPreparedStatement>;
  /** `duck` was destroyed to give its memory back (releaseOperatorState): prepared again before the next run. */
  released?: boolean;
  /** Its result columns when `duck` was let go: prepared again, they must be the same. */
  releasedShape?: string;
  /** The budget of its user's live DuckDB statements (session/handle-budget.ts) its `duck` counts in. */
  handles?: HandleBudget;
  /** The portal that ran it (or a plan sharing it) last (wire/result-stream.ts): while its result is open, its state is not let go. */
  runBy?: { readonly done: boolean; readonly result: unknown };
  /** A portal is starting it now (wire/result-stream.ts open): its state is not let go by others. */
  starting?: boolean;
  /** Columns DuckDB could only type at execution (described as text). */
  untyped: Set<number>;
  /** The SQL DuckDB prepared, when its result may be cached (session/result-cache-policy.ts); else null. */
  cacheableSql: string | null;
  /** It reads fdl.* system views, expanded to their rows at planning (text/system-views.ts): never reused. */
  systemViews?: boolean;
  /** The statement's one analysis (analysis/analysis.ts), for queries. */
  analysis?: Analysis;
  /**
   * The most rows its result can have, where its own LIMIT (the analysis) or DuckDB's bound plan (an
   * aggregate without groups: the engine line) says so: a result of one chunk at most is run whole
   * (wire/result-stream.ts).
   */
  rowBound?: number;
  /** The version the session read when DuckDB prepared the statement (names were bound there). */
  preparedFor?: string;
  /** Decided on first execution: whether the result depends only on the version. */
  repeatable?: boolean;
  /** The result-cache key of its last run without parameters (reused while nothing in it changed). */
  lastResultKey?: ResultKey;
  /** The statement's fingerprint in audit lines (computed once). */
  sqlHash?: string;
  /** Characters of the text the gateway composed for DuckDB from the client's (its ceiling: text/composed-ceiling.ts). */
  composedChars?: number;
  /**
   * A text differing from a planned one only inside its comments runs that plan's DuckDB statement
   * (session/comment-sharing.ts): this plan holds one reference to it, released with its own last.
   */
  sharedFrom?: PreparedStmt;
  /**
   * A text of a shared plan's shape (session/constant-sharing.ts): the constants its plan binds to
   * the shape's parameters, as text-format values of these PostgreSQL types (decoded as Bind's are).
   */
  constants?: { readonly texts: readonly string[]; readonly oids: readonly number[] };
  /**
   * Parameters whose values the plan needs (session/value-plans.ts): this plan only describes the
   * statement; each Bind's values are written into the text, planned as its own statement.
   */
  valuesNeeded?: { params: ReadonlyMap<number, NeededValue>; refusal: SqlError };
  /**
   * Answered from another session's remembered run (session/answered-texts.ts): not planned, no
   * DuckDB statement; planned by the wire if the result cache does not answer it after all.
   */
  answered?: boolean;
  /** A DECLARE's query, planned with the DECLARE (its parameters are the DECLARE's); each cursor takes a reference. */
  cursorQuery?: PreparedStmt;
}

/** Where a plan's live DuckDB statement is counted: its user's budget across sessions (session/handle-budget.ts). */
export interface HandleBudget {
  /** `s` holds a live DuckDB statement and is used now: the most recent of its user's. */
  used(s: PreparedStmt): void;
  /** `s`'s DuckDB statement was destroyed. */
  gone(s: PreparedStmt): void;
}

/** Tables of remote versions a statement reads, per version (one lease per attached database). */
export type TableReads = { lease: VersionLease; tables: { schema: string; name: string }[] }[];

/** Release one reference; the last one destroys the DuckDB statement and releases its versions. */
export function disposeStatement(s: PreparedStmt): void {
  if (--s.refs > 0) return;
  const from = s.sharedFrom;
  if (from) {
    // the DuckDB statement is the planned one's
    s.sharedFrom = undefined;
    s.duck = null;
    disposeStatement(from);
    return;
  }
  if (s.cursorQuery) disposeStatement(s.cursorQuery);
  s.cursorQuery = undefined;
  s.duck?.destroySync();
  s.duck = null;
  s.handles?.gone(s);
  releaseAll(s);
}

/**
 * Give back the memory DuckDB keeps in a prepared statement (its plan, and after a run its operators'
 * hash tables and column data, until it runs again or is destroyed): the statement is destroyed and
 * prepared again at its next run. Only for a statement that can be prepared again, and, unless it is its own
 * run that failed (`own`), one no portal is starting or reading now. A plan sharing another's DuckDB
 * statement (`sharedFrom`) lets go of that one's. True when it was let go.
 */
export function releaseOperatorState(s: PreparedStmt, own = false): boolean {
  const owner = s.sharedFrom ?? s;
  if (!owner.duck || !owner.prepareAgain || owner.released) return false;
  if (!own && inUse(owner)) return false;
  owner.releasedShape = shapeOf(owner.duck);
  owner.duck.destroySync();
  owner.released = true;
  owner.handles?.gone(owner);
  return true;
}

function inUse(s: PreparedStmt): boolean {
  return !!s.starting || (!!s.runBy && s.runBy.result !== null && !s.runBy.done);
}

/**
 * The statement's DuckDB statement (its owner's, for a shared plan), prepared again if it was let go
 * (releaseOperatorState). Prepared again, its columns must be those the client was told: else 0A000,
 * as PostgreSQL refuses a cached plan whose result type changed.
 */
export async function preparedDuck(s: PreparedStmt): Promise<DuckDBPreparedStatement> {
  const owner = s.sharedFrom ?? s;
  if (owner.released && owner.prepareAgain) {
    const preparing = stageClock();
    const duck = await owner.prepareAgain(); // counted as a duckdb_prepare
    spent('prepare', preparing);
    if (owner.releasedShape !== undefined && shapeOf(duck) !== owner.releasedShape) {
      duck.destroySync();
      throw new SqlError(SQLSTATE.featureNotSupported, 'cached plan must not change result type');
    }
    owner.duck = duck;
    owner.released = false;
  }
  owner.handles?.used(owner);
  s.duck = owner.duck;
  return owner.duck!;
}

/** A DuckDB statement's result columns (names and types), as one string to compare. */
function shapeOf(duck: DuckDBPreparedStatement): string {
  try {
    const columns: string[] = [];
    for (let i = 0; i < duck.columnCount; i++)
      columns.push(`${duck.columnName(i)}\u0000${duck.columnType(i).toString()}`);
    return columns.join('\u0001');
  } catch {
    return '?'; // DuckDB types its columns only with the values bound: as before
  }
}

export function releaseAll(s: PreparedStmt): void {
  for (const h of s.holds ?? []) h.release();
  s.holds = [];
  for (const l of s.leases) l.release();
  s.leases = [];
}

export function textField(name: string): FieldDescription {
  return { name, typeOid: 25, typeLen: -1, typeMod: -1, format: 0 };
}
