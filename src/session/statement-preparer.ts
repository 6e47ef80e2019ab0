/**
 * From a statement's text to a planned statement, once per text: the session's statement cache
 * first (statement-cache.ts), else planning (planner.ts) under the statement clock — statement_timeout
 * and CancelRequest cover analysis and prepare as well as execution. The caller owns one reference to
 * what is returned (release with disposeStatement).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { classify, type Statement } from '../text/classify.js';
import { statementCeilingExceeded } from '../text/split.js';
import type { SystemTable } from '../text/system-views.js';
import type { BoundParam, VersionLease, VersionSource } from '../versions/lease.js';
import { innerQuery } from './cursors.js';
import { planQuery } from './planner.js';
import { ParamNeedsValue, type NeededValue } from '../pg/param-values.js';
import { intervalParams, NUMERIC_STAND_IN, numericParams, standInText } from './value-plans.js';
import { replaceParams } from '../text/split.js';
import { reportedName } from './parameters.js';
import { disposeStatement, textField, type HandleBudget, type PlanningContext, type PreparedStmt } from './plan.js';
import { readyViews } from './plan-reads.js';
import type { SessionSettings } from './settings.js';
import { StatementCache } from './statement-cache.js';
import { sharedPlan, sharesPlan } from './comment-sharing.js';
import { constantPlan, isUnshared, markShape, readsAsShape, takesConstants } from './constant-sharing.js';
import { constantShape } from '../pg/constant-shapes.js';
import { OID } from '../pg/oids.js';
import { SET_CONFIG_HINT, settingParamCount } from '../pg/set-config.js';
import { counted } from '../stages.js';
import type { StatementClock } from './statement-clock.js';
import type { Transaction } from './transaction.js';
import type { Outbox } from './outbox.js';
import type { ResultCachePolicy } from './result-cache-policy.js';

/** What preparing reads of the session (session/core.ts): nothing here calls into the wire. */
export interface PreparerHost {
  readonly conn: DuckDBConnection;
  readonly versions: VersionSource;
  readonly repo: string;
  readonly user: string;
  readonly settings: SessionSettings;
  readonly clock: StatementClock;
  readonly tx: Transaction;
  /** Whether the session has a result cache (plans then say which results they may keep). */
  readonly cachesResults: boolean;
  /** NOTICEs for the client (file pruning). */
  readonly outbox: Outbox;
  /** Which runs the result cache answers, and the texts it answered before (answered-texts.ts). */
  readonly cachePolicy: ResultCachePolicy;
  /** The session's own version now. */
  lease(): VersionLease | null;
  /** Re-resolve a moving ref (at most once per statement); undefined when the session stays on its version. */
  refreshVersion(): Promise<void> | undefined;
  /** Whether refreshVersion would certainly keep the session on its version (asked without waiting). */
  versionStaysPut(): boolean;
  /** fdl.session's one row, as the session sees itself now. */
  sessionTable(): SystemTable;
  /** The user's budget of live DuckDB statements, across their sessions (handle-budget.ts). */
  readonly handles?: HandleBudget;
}

/**
 * Whether preparing `stmt` runs DuckDB on the session's connection: the caller first frees it (no
 * result stream open, no prefetch running: DuckDB keeps one stream per connection).
 */
export function plansOnDuckDB(stmt: Statement, text: string): boolean {
  return stmt.kind === 'declare' || ((stmt.kind === 'query' || stmt.kind === 'copyOut') && text !== '');
}

export class StatementPreparer {
  /** Prepared statements by text and declared types, shared by simple Query, unnamed and named Parse. */
  readonly cache = new StatementCache();
  /**
   * Planning given up on (statement_timeout or cancel during DuckDB's uninterruptible prepare): it
   * still holds the session's DuckDB connection until DuckDB finishes; what comes next waits for it
   * under its own statement's clock.
   */
  private busy: Promise<void> | null = null;

  constructor(private readonly host: PreparerHost) {}

  /**
   * One statement's text (a simple-Query part, or a Parse): the size and nesting ceilings, what kind
   * of statement it is, whether a failed block admits it. Then prepareCached (plansOnDuckDB says
   * whether the connection must be freed first).
   */
  classifyText(text: string): Statement {
    const over = statementCeilingExceeded(text);
    if (over) throw new SqlError(over.sqlstate, over.message);
    const stmt: Statement = text === '' ? { kind: 'query', sql: '' } : classify(text);
    this.host.tx.admits(isExitFromFailed(stmt));
    return stmt;
  }

  /** A statement from the cache, or planned now and offered to it. */
  async prepareCached(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt> {
    const reused =
      (await this.reuseCached(text, declaredTypes)) ??
      (await this.reuseShared(text, stmt, declaredTypes)) ??
      (await this.reuseShape(text, stmt, declaredTypes));
    if (reused) return reused;
    const prepared = await this.prepare(text, stmt, declaredTypes);
    this.cache.offer(prepared);
    return prepared;
  }

  /**
   * A simple Query's text new to the session that the result cache answered for another session in
   * the same scope (answered-texts.ts): answered without planning, after the ref is re-resolved as
   * planning would. null: plan it.
   */
  async answered(text: string, stmt: Statement): Promise<PreparedStmt | null> {
    if (!this.host.cachesResults || stmt.kind !== 'query' || text === '') return null;
    await this.host.refreshVersion();
    return this.host.cachePolicy.answered(text, stmt, this.host.lease(), this.host.settings);
  }

  /** The cached statement for exactly this text and declared types (one more reference), or null. */
  async reuseCached(text: string, declaredTypes: number[]): Promise<PreparedStmt | null> {
    if (!this.cache.get(text, declaredTypes)) return null;
    await this.host.refreshVersion();
    const again = this.cache.get(text, declaredTypes); // a version move empties the cache
    return again ? this.take(again) : null;
  }

  /**
   * The cached statement when taking it needs no wait (no ref to re-resolve first): the hot path of
   * a repeated statement. null means ask reuseCached.
   */
  reuseCachedNow(text: string, declaredTypes: number[]): PreparedStmt | null {
    const cached = this.cache.get(text, declaredTypes);
    return cached && this.host.versionStaysPut() ? this.take(cached) : null;
  }

  /**
   * The plan of a kept text that differs from this one only inside its comments, shared
   * (comment-sharing.ts), or null.
   */
  private async reuseShared(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt | null> {
    if (!this.cache.getByShape(text, declaredTypes)) return null;
    await this.host.refreshVersion();
    const planned = this.cache.getByShape(text, declaredTypes); // a version move empties the cache
    if (!planned || !sharesPlan(planned, text, stmt)) return null;
    counted('plan_shared');
    return sharedPlan(this.take(planned), text, stmt);
  }

  /**
   * The plan of the text's constant shape (pg/constant-shapes.ts), kept or planned now, running with
   * this text's constants (constant-sharing.ts); null: plan the text as itself.
   */
  private async reuseShape(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt | null> {
    if (stmt.kind !== 'query' || text === '' || declaredTypes.some((t) => t !== 0)) return null;
    const shape = constantShape(text);
    if (!shape || isUnshared(shape.sql)) return null;
    let planned = await this.reuseCached(shape.sql, []);
    if (!planned) {
      const shaped = classify(shape.sql);
      if (shaped.kind !== 'query') return (markShape(shape.sql, false), null);
      try {
        planned = await this.prepare(shape.sql, shaped, []);
      } catch (e) {
        if (this.host.clock.stopRequested) throw e;
        markShape(shape.sql, false); // the text itself is planned, for its own answer
        return null;
      }
      this.cache.offer(planned);
    }
    const takes = takesConstants(planned, shape);
    markShape(shape.sql, takes);
    if (!takes || !readsAsShape(planned, text, stmt, shape)) {
      disposeStatement(planned);
      return null;
    }
    counted('constants_shared');
    return constantPlan(planned, text, stmt, shape);
  }

  private take(cached: PreparedStmt): PreparedStmt {
    this.host.tx.admits(isExitFromFailed(cached.stmt));
    if (cached.duck !== null || cached.cursorQuery) this.host.tx.reads();
    cached.refs++;
    return cached;
  }

  /**
   * Plan a statement now (never from the cache): gateway statements need no DuckDB prepare. When
   * plansOnDuckDB, the caller has freed the connection (no open stream, no prefetch running).
   */
  async prepare(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt> {
    const { clock } = this.host;
    const base: PreparedStmt = {
      refs: 1,
      sql: text,
      stmt,
      declaredTypes,
      duck: null,
      paramOids: [],
      fields: null,
      columnTypes: [],
      columnOids: [],
      leases: [],
      untyped: new Set(),
      cacheableSql: null,
    };
    if (stmt.kind === 'show') {
      // PostgreSQL names SHOW's column with the parameter's own spelling (TimeZone, DateStyle).
      base.fields = [textField(reportedName(stmt.name) ?? stmt.name)];
      return base;
    }
    if (stmt.kind === 'setConfig') {
      base.fields = stmt.calls.map((c) => textField(c.column));
      // set_config(text, text, boolean): a parameter as its name or value is text, as PostgreSQL infers it
      base.paramOids = Array.from({ length: settingParamCount(stmt.calls) }, (_, i) => {
        const declared = base.declaredTypes[i] ?? 0;
        if (![0, OID.text, OID.varchar, OID.unknown].includes(declared))
          throw new SqlError(
            SQLSTATE.featureNotSupported,
            'set_config() with a parameter of a type other than text is not supported by fdl-gateway',
            undefined,
            SET_CONFIG_HINT,
          );
        return OID.text;
      });
      return base;
    }
    if (stmt.kind === 'showAll') {
      base.fields = [textField('name'), textField('setting'), textField('description')];
      return base;
    }
    if (stmt.kind === 'refused') throw new SqlError(stmt.sqlstate, stmt.message, undefined, stmt.hint);
    if (stmt.kind === 'declare') {
      // Planned now, as PostgreSQL does: DECLARE … $1 takes the query's parameters.
      base.cursorQuery = await this.prepare(stmt.query, innerQuery(stmt.query, 'DECLARE CURSOR'), declaredTypes);
      base.paramOids = base.cursorQuery.paramOids;
      // A query needing its values (value-plans.ts, psycopg 3's named cursors): the DECLARE is planned
      // again at Bind with them written in; this one only says the parameters' types.
      const needs = base.cursorQuery.valuesNeeded;
      if (needs) {
        disposeStatement(base.cursorQuery);
        base.cursorQuery = undefined;
        base.valuesNeeded = needs;
      }
      return base;
    }
    if ((stmt.kind !== 'query' && stmt.kind !== 'copyOut') || text === '') return base;
    let settled = false;
    let givenUp = false;
    const planning = (async () => {
      await this.busy;
      if (givenUp) return; // timed out while the connection was still busy: nothing to plan
      await this.host.refreshVersion();
      if (givenUp) return;
      this.host.tx.reads(); // planned over the block's version, as PostgreSQL's Parse takes its snapshot
      await this.planOrDescribe(base, stmt);
    })().finally(() => (settled = true));
    try {
      await clock.bound(planning);
      if (clock.stopRequested) throw clock.interruption();
    } catch (e) {
      givenUp = true;
      if (settled) disposeStatement(base);
      else
        this.abandon(
          planning.then(
            () => disposeStatement(base),
            () => undefined,
          ),
        );
      throw inListing(this.host.lease(), e);
    }
    return base;
  }

  /**
   * planQuery; a parameter where PostgreSQL's meaning needs a constant (pg/param-values.ts) makes the
   * plan one that only describes the statement, planned with stand-ins there (value-plans.ts).
   */
  private async planOrDescribe(base: PreparedStmt, stmt: Extract<Statement, { kind: 'query' | 'copyOut' }>) {
    const count = paramCount(stmt.kind === 'query' ? stmt.sql : stmt.query);
    const needed =
      stmt.kind === 'query' ? numericParams(base.sql, base.declaredTypes, count) : new Map<number, NeededValue>();
    const intervals =
      stmt.kind === 'query' ? intervalParams(base.sql, base.declaredTypes, count) : new Map<number, NeededValue>();
    let refusal: ParamNeedsValue | undefined =
      needed.size > 0
        ? new ParamNeedsValue(new Map(needed), 'a numeric parameter')
        : intervals.size > 0
          ? new ParamNeedsValue(new Map(intervals), 'an interval parameter beside another interval')
          : undefined;
    for (const [n, v] of intervals) if (!needed.has(n)) needed.set(n, v);
    for (;;) {
      const { text, numbers } = standInText(base.sql, needed, count);
      const target: PreparedStmt =
        needed.size === 0
          ? base
          : { ...base, sql: text, declaredTypes: numbers.map((n) => base.declaredTypes[n - 1] ?? 0), paramOids: [] };
      if (target !== base) Object.assign(target, { fields: null, columnTypes: [], columnOids: [], leases: [] });
      try {
        await planQuery(this.planning(), target, needed.size === 0 ? stmt : { kind: 'query', sql: text });
      } catch (e) {
        const fresh = (n: number) => (needed.size === 0 ? n : numbers[n - 1]) !== undefined;
        if (!(e instanceof ParamNeedsValue) || stmt.kind !== 'query' || ![...e.params.keys()].every(fresh)) throw e;
        refusal ??= e;
        // numbered as in the stand-in text: back to the client's numbers
        for (const [n, value] of e.params) needed.set(needed.size === 0 ? n : numbers[n - 1]!, value);
        continue;
      }
      if (target === base) return;
      // The stand-in plan describes the statement; it is never run.
      const renumbered = new Map(numbers.map((n, k) => [n, k] as const));
      // At Bind every parameter is written in by its type (valuesText), a numeric one as a numeric constant:
      // one DuckDB infers numeric here is stood in too, so the described columns are those sent (`$1::numeric
      // / $2` was described float8 and sent numeric).
      const inferredNumeric = numbers.filter(
        (n) => !base.declaredTypes[n - 1] && target.paramOids[renumbered.get(n)!] === OID.numeric,
      );
      if (inferredNumeric.length > 0) {
        target.refs = 1;
        disposeStatement(target);
        for (const n of inferredNumeric) needed.set(n, { oid: OID.numeric, standIn: NUMERIC_STAND_IN });
        continue;
      }
      base.paramOids = Array.from(
        { length: count },
        (_, i) => base.declaredTypes[i] || needed.get(i + 1)?.oid || (target.paramOids[renumbered.get(i + 1)!] ?? 0),
      );
      base.fields = target.fields;
      base.columnTypes = target.columnTypes;
      base.columnOids = target.columnOids;
      base.untyped = target.untyped;
      base.valuesNeeded = { params: needed, refusal: refusal! };
      target.refs = 1;
      disposeStatement(target);
      return;
    }
  }

  /** Before a run on the session's DuckDB connection: planning given up on has finished (under the statement's clock, if one runs). */
  async waitIdle(): Promise<void> {
    if (!this.busy) return;
    await this.host.clock.bound(this.busy);
  }

  /**
   * Before the connection is closed: planning given up on has finished, however long it takes.
   * DuckDB's prepare cannot be interrupted, and closing the connection under it crashes or wedges
   * the process (fuzz.test.ts › clients disconnecting mid-query…).
   */
  async drained(): Promise<void> {
    while (this.busy) await this.busy.catch(() => undefined);
  }

  private abandon(rest: Promise<void>): void {
    const busy: Promise<void> = rest.finally(() => {
      if (this.busy === busy) this.busy = null;
    });
    this.busy = busy;
  }

  /**
   * Before a run: a statement over remote versions gets its own views back (and, with parameters,
   * the files its values reach); call the result once DuckDB has started it (plan-reads.ts).
   */
  async readyViews(prepared: PreparedStmt, values: readonly BoundParam[]): Promise<() => void> {
    await this.replanIfMoved(prepared);
    return readyViews(this.planning(), prepared, values);
  }

  /**
   * A statement DuckDB prepared on a version the session has since moved off (a named statement
   * kept across a branch move) bound its names there: plan it again on the version read now, as
   * PostgreSQL re-plans a cached plan whose objects changed, and refuse as it does when the
   * result's shape would change (0A000, "cached plan must not change result type").
   */
  private async replanIfMoved(prepared: PreparedStmt): Promise<void> {
    const now = this.host.lease()?.versionId;
    if (
      prepared.duck === null ||
      prepared.preparedFor === undefined ||
      now === undefined ||
      prepared.preparedFor === now
    )
      return;
    const fresh = await this.prepare(prepared.sql, prepared.stmt, prepared.declaredTypes);
    try {
      const same = (a: PreparedStmt['fields'], b: PreparedStmt['fields']) =>
        a?.length === b?.length &&
        (a ?? []).every(
          (f, i) => f.name === b![i]!.name && f.typeOid === b![i]!.typeOid && f.typeMod === b![i]!.typeMod,
        );
      if (!same(prepared.fields, fresh.fields) || prepared.paramOids.join() !== fresh.paramOids.join()) {
        throw new SqlError(SQLSTATE.featureNotSupported, 'cached plan must not change result type');
      }
      // a shared plan lets go of the planned one's DuckDB statement and takes its own
      const from = prepared.sharedFrom;
      if (from) {
        prepared.sharedFrom = undefined;
        prepared.duck = null;
        disposeStatement(from);
      }
      // planned as itself now: its constants are in its own text
      prepared.constants = undefined;
      // Swap the planned parts: the old ones go with `fresh` (released below).
      for (const k of [
        'duck',
        'fields',
        'columnTypes',
        'columnOids',
        'leases',
        'holds',
        'reads',
        'fetchOnBind',
        'untyped',
        'cacheableSql',
        'analysis',
        'rowBound',
        'preparedFor',
        'prepareAgain',
        'released',
        'releasedShape',
      ] as const) {
        const mine = prepared[k];
        (prepared as unknown as Record<string, unknown>)[k] = fresh[k];
        (fresh as unknown as Record<string, unknown>)[k] = mine;
      }
      prepared.repeatable = undefined;
      prepared.lastResultKey = undefined;
      if (prepared.duck && !prepared.released) prepared.handles?.used(prepared);
    } finally {
      fresh.refs = 1;
      disposeStatement(fresh);
    }
  }

  private planning(): PlanningContext {
    const h = this.host;
    return {
      conn: h.conn,
      versions: h.versions,
      repo: h.repo,
      user: h.user,
      lease: h.lease(),
      settings: h.settings,
      cachesResults: h.cachesResults,
      sessionTable: () => h.sessionTable(),
      notice: (message) => h.outbox.notice(message),
      handles: h.handles,
    };
  }
}

/** A relation or schema missing in a listing database (`postgres`): say where the tables are. */
function inListing(lease: VersionLease | null, e: unknown): unknown {
  if (!lease?.listing || !(e instanceof SqlError)) return e;
  if (e.sqlstate !== SQLSTATE.undefinedTable && e.sqlstate !== SQLSTATE.invalidSchemaName) return e;
  return new SqlError(
    e.sqlstate,
    e.message,
    e.detail ?? `Database "${lease.repo}" lists the served repositories (pg_database, \\l) and holds no tables.`,
    'Connect to one of the databases \\l lists (NAME, or NAME~REF for a branch, tag or version).',
  );
}

/** Statements a failed transaction block still admits (they end it). */
export function isExitFromFailed(stmt: Statement): boolean {
  return stmt.kind === 'rollback' || stmt.kind === 'commit' || stmt.kind === 'rollbackTo';
}

/** The highest parameter number ($n) the text names. */
function paramCount(sql: string): number {
  let max = 0;
  replaceParams(sql, (n) => ((max = Math.max(max, n)), undefined));
  return max;
}
