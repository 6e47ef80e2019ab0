/**
 * One client session: its DuckDB connection, the version it reads, PostgreSQL session settings,
 * transaction state, prepared statements and portals. The connection (connection.ts) feeds it
 * decoded messages; the session writes backend messages through `out` and flushes with
 * backpressure, so results stream chunk by chunk.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';
import { VARCHAR } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { SqlError, SQLSTATE } from '../errors.js';
import { classify, Statement } from '../sql/classify.js';
import { fromDuckDB } from '../sql/duckdb-errors.js';
import { splitStatements, statementCeilingExceeded } from '../sql/split.js';
import * as be from './backend.js';
import type { FieldDescription, Notice } from './backend.js';
import { SessionSettings } from './session-settings.js';
import { decodeParam, makeRowEncoder, pgFieldFor, type RowEncoder } from './types/index.js';
import { isRepeatable } from '../sql/determinism.js';
import { ResultRecorder, type ResultCache, type ResultKey } from '../cache/result-cache.js';
import { type SystemTable } from '../sql/system-views.js';
import { Writer } from './writer.js';
import { Transaction } from '../session/transaction.js';
import { RefFollower, type VersionMove } from '../session/ref-follower.js';
import { SetShow, type SettingOutcome } from '../session/set-show.js';
import { disposeStatement, fetchForValues, planQuery, textField, type PlanningContext, type PreparedStmt } from '../session/planner.js';
import { copyHeader, dataRowsToCopy, type CopyFormat } from './copy.js';

import { type VersionLease, type VersionSource } from '../versions/lease.js';

// The version service's contract lives in versions/lease.ts; re-exported for the wire's own modules.
export type { VersionLease, VersionSource };

/** Per-session limits from the gateway configuration (0 = none). */
export interface SessionLimits {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  maxResultRows: number;
  maxResultBytes: number;
}

/** The shared result cache and what decides which statements it may answer. */
export interface SessionResults {
  readonly cache: ResultCache;
  /** Built-in functions DuckDB declares consistent (sql/determinism.ts). */
  readonly consistentFunctions: ReadonlySet<string>;
}

export interface SessionOutput {
  readonly w: Writer;
  /** Send what is buffered; resolves when the socket can take more (backpressure). */
  flush(): Promise<void>;
  /** True once the client is gone: stop producing rows. */
  readonly closed: boolean;
}

interface Portal {
  prepared: PreparedStmt;
  params: (Buffer | null)[];
  paramFormats: number[];
  resultFormats: (0 | 1)[];
  result: DuckDBResult | null;
  encoder: RowEncoder | null;
  chunk: DuckDBDataChunk | null;
  chunkPos: number;
  rows: number;
  /** Rows sent since the last Execute began (for PortalSuspended). */
  batchRows: number;
  /** Chunks DuckDB produces (one call after another) while the current one is sent. */
  ahead: Promise<Fetched>[];
  /** DataRow bytes produced (for the byte cap). */
  bytes: number;
  done: boolean;
  /** SQL-level cursor (DECLARE): owns its prepared statement; WITH HOLD survives COMMIT. */
  cursor?: { hold: boolean };
  /** Another statement ran on the connection while this portal's DuckDB stream was open. */
  interrupted?: boolean;
  /** Rows being recorded for the result cache, and under which key. */
  recording?: { recorder: ResultRecorder; key: ResultKey };
  /** Answered from the result cache. */
  replayed?: boolean;
}

const FLUSH_BYTES = 256 * 1024;
/** Chunks (of 2,048 rows) fetched ahead of the one being sent. */
const PREFETCH_CHUNKS = 4;

interface Fetched {
  chunk: DuckDBDataChunk | null;
  error: unknown;
}
const END_OF_RESULT: Fetched = { chunk: null, error: null };
const DISCONNECTED = new SqlError('08006', 'client disconnected');

function isDuckDBInterrupt(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('INTERRUPT Error');
}

export class Session {
  readonly settings: SessionSettings;
  /** Which version the session reads, following a moving ref (session/ref-follower.ts). */
  private readonly follower: RefFollower;
  /** SET / SHOW / RESET (session/set-show.ts). */
  private readonly setShow: SetShow;
  private statements = new Map<string, PreparedStmt>();
  /** Prepared statements by text and declared types (see prepareCached), shared by simple Query, unnamed and named Parse. */
  private readonly statementCache = new LRUCache<string, PreparedStmt>({ max: 64, dispose: (p) => disposeStatement(p) });
  private portals = new Map<string, Portal>();
  /** Transaction and savepoint state (session/transaction.ts). */
  private readonly tx = new Transaction();
  /** Set from CancelRequest; checked between chunks and turned into 57014. */
  private cancelRequested = false;
  private running = false;
  private statementTimer: NodeJS.Timeout | null = null;
  /** Set once the client has gone (see abort). */
  private aborted = false;
  /** A chunk prefetch that may still be running on the DuckDB connection. */
  private inflight: Promise<unknown> | null = null;
  private timedOut = false;
  /** Counts statements (simple-query parts, Parse, Execute) so a branch is re-resolved once per statement. */
  private statementSeq = 0;
  /** The client's address (the real one behind a PROXY-protocol balancer), for fdl.session and pg_stat_activity. */
  clientAddress: string | null = null;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly versions: VersionSource,
    readonly repo: string,
    requestedRef: string,
    readonly user: string,
    private readonly out: SessionOutput,
    private readonly limits: SessionLimits,
    private readonly results: SessionResults | null,
    private readonly audit: (entry: Record<string, unknown>) => void = () => undefined,
  ) {
    this.settings = new SessionSettings(conn, user, limits, (name, value) => be.parameterStatus(this.out.w, name, value));
    this.follower = new RefFollower(versions, repo, user, requestedRef, async (next) => {
      try {
        await this.conn.run(`USE ${quoteIdent(next.dbName)}`);
        await this.settings.useVersion(next.dbName);
        await this.conn.run(next.catalogInfoSql);
      } catch (e) {
        throw fromDuckDB(e);
      }
      this.clearStatementCache(); // prepared against the version being left
    });
    this.setShow = new SetShow(this.settings, this.follower, repo);
  }

  /** The version the session reads now. */
  private get lease(): VersionLease | null {
    return this.follower.lease;
  }

  get transactionStatus(): 'I' | 'T' | 'E' {
    return this.tx.status;
  }

  get version(): VersionLease | null {
    return this.lease;
  }

  /** Resolve and attach the startup version; errors here end the connection (3D000 etc.). */
  async open(): Promise<void> {
    await this.follower.open();
  }

  async close(): Promise<void> {
    await this.settle();
    for (const p of this.portals.values()) this.dropPortal(p);
    this.portals.clear();
    for (const s of this.statements.values()) disposeStatement(s);
    this.statements.clear();
    this.clearStatementCache();
    this.follower.release();
    try {
      this.conn.disconnectSync();
    } catch {
      /* already gone */
    }
  }

  /** CancelRequest from another socket: interrupt DuckDB if a query is running. */
  cancel(): void {
    if (!this.running) return;
    this.cancelRequested = true;
    this.conn.interrupt();
  }

  /**
   * The client is gone: interrupt what runs now and refuse to start anything else, so the DuckDB
   * connection is idle (and can be freed) as soon as the message loop returns.
   */
  abort(): void {
    this.aborted = true;
    this.cancel();
  }

  // ---------------------------------------------------------------- simple query protocol

  async simpleQuery(sql: string): Promise<void> {
    const parts = splitStatements(sql);
    if (parts.length === 0) {
      be.emptyQueryResponse(this.out.w);
    }
    // Several statements in one Query run in one implicit transaction: an error skips the rest.
    for (const text of parts) {
      this.statementSeq++;
      try {
        const over = statementCeilingExceeded(text);
        if (over) throw new SqlError(over.sqlstate, over.message);
        const stmt = classify(text);
        this.tx.admits(isExitFromFailed(stmt));
        const prepared = await this.prepareCached(text, stmt, []);
        const portal = this.newPortal(prepared, [], [], []);
        try {
          await this.runLogged(portal, 0, true);
        } finally {
          this.dropPortal(portal);
          disposeStatement(prepared);
        }
      } catch (e) {
        this.fail(e);
        break;
      }
    }
    this.endImplicitTransaction();
    be.readyForQuery(this.out.w, this.tx.status);
    await this.out.flush();
  }

  // ---------------------------------------------------------------- extended query protocol

  async parse(name: string, sql: string, paramTypes: number[]): Promise<void> {
    this.statementSeq++;
    if (name !== '' && this.statements.has(name)) {
      throw new SqlError('42P05', `prepared statement "${name}" already exists`);
    }
    // A text seen before as one whole statement skips splitting, the ceiling check and classification
    // (all already passed for exactly this text): an unnamed repeat costs what a named Bind does.
    const prepared = (await this.reuseCached(sql, paramTypes)) ?? (await this.parseNew(sql, paramTypes));
    const old = this.statements.get(name);
    if (old) disposeStatement(old);
    this.statements.set(name, prepared);
    be.parseComplete(this.out.w);
  }

  private async parseNew(sql: string, paramTypes: number[]): Promise<PreparedStmt> {
    const parts = splitStatements(sql);
    if (parts.length > 1) throw new SqlError(SQLSTATE.syntaxError, 'cannot insert multiple commands into a prepared statement');
    const text = parts[0] ?? '';
    const over = statementCeilingExceeded(text);
    if (over) throw new SqlError(over.sqlstate, over.message);
    const stmt: Statement = text === '' ? { kind: 'query', sql: '' } : classify(text);
    this.tx.admits(isExitFromFailed(stmt));
    return this.prepareCached(text, stmt, paramTypes);
  }

  bind(portalName: string, statementName: string, paramFormats: number[], params: (Buffer | null)[], resultFormats: number[]): void {
    const prepared = this.statements.get(statementName);
    if (!prepared) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${statementName}" does not exist`);
    if (params.length !== prepared.paramOids.length) {
      throw new SqlError(
        SQLSTATE.protocolViolation,
        `bind message supplies ${params.length} parameters, but prepared statement "${statementName}" requires ${prepared.paramOids.length}`,
      );
    }
    if (paramFormats.length > 1 && paramFormats.length !== params.length) {
      throw new SqlError(SQLSTATE.protocolViolation, `bind message has ${paramFormats.length} parameter formats but ${params.length} parameters`);
    }
    const ncols = prepared.fields?.length ?? 0;
    if (resultFormats.length > 1 && resultFormats.length !== ncols) {
      throw new SqlError(SQLSTATE.protocolViolation, `bind message has ${resultFormats.length} result formats but query has ${ncols} columns`);
    }
    const existing = this.portals.get(portalName);
    if (existing) {
      if (portalName !== '') throw new SqlError('42P03', `cursor "${portalName}" already exists`);
      this.dropPortal(existing);
    }
    const formats = expandFormats(resultFormats, ncols);
    this.portals.set(portalName, this.newPortal(prepared, params, paramFormats, formats));
    be.bindComplete(this.out.w);
  }

  describeStatement(name: string): void {
    const prepared = this.statements.get(name);
    if (!prepared) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${name}" does not exist`);
    be.parameterDescription(this.out.w, prepared.paramOids);
    if (prepared.fields && prepared.fields.length > 0 && prepared.stmt.kind !== 'copyOut') be.rowDescription(this.out.w, prepared.fields);
    else be.noData(this.out.w);
  }

  async describePortal(name: string): Promise<void> {
    const portal = this.portals.get(name);
    if (!portal) throw new SqlError(SQLSTATE.invalidCursorName, `portal "${name}" does not exist`);
    const fields = portal.prepared.fields;
    if (fields && fields.length > 0 && portal.prepared.stmt.kind !== 'copyOut') {
      // Columns typed only by the bound parameters: run the portal now and describe what it yields.
      if (portal.prepared.untyped.size > 0 && !portal.result && !portal.done) await this.startQuery(portal);
      be.rowDescription(this.out.w, this.portalFields(portal));
    } else be.noData(this.out.w);
  }

  /** RowDescription of a portal: the prepared description, completed from the running result. */
  private portalFields(portal: Portal): FieldDescription[] {
    const fields = portal.prepared.fields ?? [];
    const result = portal.result;
    return fields.map((f, i) => {
      if (result && portal.prepared.untyped.has(i) && portal.prepared.columnOids[i] === undefined) {
        const t = pgFieldFor(result.columnType(i));
        return { ...f, typeOid: t.oid, typeLen: t.typlen, typeMod: t.typmod, format: portal.resultFormats[i] ?? 0 };
      }
      return { ...f, format: portal.resultFormats[i] ?? 0 };
    });
  }

  async execute(portalName: string, maxRows: number): Promise<void> {
    this.statementSeq++;
    const portal = this.portals.get(portalName);
    if (!portal) throw new SqlError(SQLSTATE.invalidCursorName, `portal "${portalName}" does not exist`);
    this.tx.admits(isExitFromFailed(portal.prepared.stmt));
    await this.runLogged(portal, maxRows > 0 ? maxRows : 0, false);
  }

  closeStatement(name: string): void {
    const s = this.statements.get(name);
    if (s) {
      disposeStatement(s);
      this.statements.delete(name);
    }
    be.closeComplete(this.out.w);
  }

  closePortal(name: string): void {
    const p = this.portals.get(name);
    if (p) {
      this.dropPortal(p);
      this.portals.delete(name);
    }
    be.closeComplete(this.out.w);
  }

  /** Sync: end an implicit transaction and report status. */
  async sync(): Promise<void> {
    this.endImplicitTransaction();
    be.readyForQuery(this.out.w, this.tx.status);
    await this.out.flush();
  }

  /** Record an error: inside an explicit transaction the transaction becomes failed. */
  fail(e: unknown): void {
    // DuckDB reports an interrupted query as its own error kind; say why it was interrupted.
    const err = e instanceof SqlError ? e : isDuckDBInterrupt(e) && (this.timedOut || this.cancelRequested) ? this.interruption() : fromDuckDB(e);
    this.cancelRequested = false;
    this.timedOut = false;
    this.tx.fail();
    this.auditStatement({
      sqlstate: err.sqlstate,
      error: err.message.split('\n')[0],
    });
    be.errorResponse(this.out.w, toNotice(err));
  }

  // ---------------------------------------------------------------- internals

  private notice(n: Omit<Notice, 'severity'> & { severity?: Notice['severity'] }): void {
    be.noticeResponse(this.out.w, { severity: 'NOTICE', ...n });
  }

  /** Implicit transactions (autocommit) end at Sync / end of a simple Query. */
  private endImplicitTransaction(): void {
    if (this.tx.inBlock) return;
    for (const [name, p] of this.portals) {
      if (p.cursor?.hold) continue;
      this.dropPortal(p);
      this.portals.delete(name);
    }
  }

  /**
   * Statements repeat (dashboards, pgbench, and drivers that send every parameterized query as an
   * unnamed Parse): keep the DuckDB prepared statement per session by text and declared parameter
   * types, so an unnamed statement costs what a named one does. Only statements that read the
   * session's own version are kept, and the cache is emptied whenever the session moves to another
   * version. The caller owns one reference to what is returned (release with disposeStatement).
   */
  private async prepareCached(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt> {
    const reused = await this.reuseCached(text, declaredTypes);
    if (reused) return reused;
    const key = statementKey(text, declaredTypes);
    const prepared = await this.prepare(text, stmt, declaredTypes);
    // A statement over a remote version's files is planned afresh each time: its pins end with it.
    const cacheable = prepared.duck !== null && prepared.leases.length === 0 && !prepared.holds?.length && !prepared.fetchOnBind && !/\bfdl\s*\./i.test(text);
    if (cacheable) {
      prepared.refs++;
      this.statementCache.set(key, prepared);
    }
    return prepared;
  }

  /** The cached statement for exactly this text and declared types (one more reference), or null. */
  private async reuseCached(text: string, declaredTypes: number[]): Promise<PreparedStmt | null> {
    const key = statementKey(text, declaredTypes);
    if (!this.statementCache.get(key)) return null;
    await this.refreshVersion();
    const again = this.statementCache.get(key); // a version move empties the cache
    if (!again) return null;
    this.tx.admits(isExitFromFailed(again.stmt));
    again.refs++;
    return again;
  }

  private clearStatementCache(): void {
    this.statementCache.clear(); // dispose releases each statement
  }

  private async prepare(text: string, stmt: Statement, declaredTypes: number[]): Promise<PreparedStmt> {
    await this.settle();
    const base: PreparedStmt = { refs: 1, sql: text, stmt, declaredTypes, duck: null, paramOids: [], fields: null, columnTypes: [], columnOids: [], leases: [], untyped: new Set(), cacheableSql: null };
    if (stmt.kind === 'show') {
      base.fields = [textField(stmt.name)];
      return base;
    }
    if (stmt.kind === 'showAll') {
      base.fields = [textField('name'), textField('setting'), textField('description')];
      return base;
    }
    if (stmt.kind === 'refused') throw new SqlError(stmt.sqlstate, stmt.message);
    if ((stmt.kind !== 'query' && stmt.kind !== 'copyOut') || text === '') return base;
    // statement_timeout and CancelRequest cover analysis and prepare as well as execution.
    const timing = !this.running;
    if (timing) this.beginRunning();
    try {
      this.interruptOpenPortals(null);
      await this.refreshVersion();
      await planQuery(this.planning(), base, stmt);
      if (this.timedOut || this.cancelRequested) throw this.interruption();
    } catch (e) {
      disposeStatement(base);
      throw e;
    } finally {
      if (timing) this.endRunning();
    }
    return base;
  }

  /** What planning (session/planner.ts) reads from this session. */
  private planning(): PlanningContext {
    return {
      conn: this.conn,
      versions: this.versions,
      repo: this.repo,
      user: this.user,
      lease: this.lease,
      settings: this.settings,
      cachesResults: this.results !== null,
      sessionTable: () => this.sessionTable(),
      notice: (message) => this.notice({ code: '00000', message }),
    };
  }

  /** fdl.session: what the client asked for and what it reads now. */
  private sessionTable(): SystemTable {
    const l = this.lease;
    const moving = l ? this.versions.isMoving(l) : false;
    return {
      columns: [
        ['repository', 'VARCHAR'],
        ['requested_ref', 'VARCHAR'],
        ['resolved_ref', 'VARCHAR'],
        ['version', 'VARCHAR'],
        ['resolved_at', 'TIMESTAMPTZ'],
        ['pinned', 'BOOLEAN'],
        ['client_addr', 'VARCHAR'],
      ],
      rows: [[this.repo, this.follower.ref, l?.ref ?? null, l?.versionId ?? null, l?.resolvedAt.toISOString() ?? null, !moving || this.tx.inBlock, this.clientAddress]],
    };
  }

  private newPortal(prepared: PreparedStmt, params: (Buffer | null)[], paramFormats: number[], resultFormats: (0 | 1)[]): Portal {
    return {
      prepared,
      params,
      paramFormats,
      resultFormats,
      result: null,
      encoder: null,
      chunk: null,
      chunkPos: 0,
      rows: 0,
      batchRows: 0,
      ahead: [],
      bytes: 0,
      done: false,
    };
  }

  private dropPortal(p: Portal): void {
    if (p.cursor) disposeStatement(p.prepared);
    p.ahead = [];
    p.result = null;
    p.chunk = null;
    p.done = true;
  }

  /** One audit line: who read which version, and the outcome (`fields`). */
  private auditStatement(fields: Record<string, unknown>): void {
    this.audit({
      event: 'statement',
      user: this.user,
      database: this.repo,
      ref: this.follower.ref,
      version: this.lease?.versionId,
      ...fields,
    });
  }

  /** Run a portal and write one audit line: who, which version, how long, how many rows (errors: see fail). */
  private async runLogged(portal: Portal, maxRows: number, describe: boolean): Promise<void> {
    const started = process.hrtime.bigint();
    const rowsBefore = portal.rows;
    await this.runPortal(portal, maxRows, describe);
    {
      this.auditStatement({
        kind: portal.prepared.stmt.kind,
        // The statement's fingerprint, not its text: literals may hold secrets.
        sql_sha256: (portal.prepared.sqlHash ??= createHash('sha256').update(portal.prepared.sql).digest('hex').slice(0, 16)),
        ...(portal.replayed ? { cached: true } : {}),
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        rows: portal.rows - rowsBefore,
        sqlstate: '00000',
      });
    }
  }

  /**
   * Run (or resume) a portal. `describe` is true for simple Query, where RowDescription precedes
   * the rows; in the extended protocol the client asked with Describe (or already knows).
   */
  private async runPortal(portal: Portal, maxRows: number, describe: boolean): Promise<void> {
    const stmt = portal.prepared.stmt;
    if (stmt.kind === 'copyOut') {
      portal.resultFormats = portal.prepared.columnTypes.map(() => 0);
      await this.startQuery(portal);
      await this.streamCopy(portal, { format: stmt.format, header: stmt.header, delimiter: stmt.delimiter ?? (stmt.format === 'csv' ? ',' : '\t') });
      return;
    }
    if (stmt.kind !== 'query' || portal.prepared.sql === '') {
      if (portal.prepared.sql === '' && stmt.kind === 'query') {
        be.emptyQueryResponse(this.out.w);
        return;
      }
      await this.runGatewayStatement(portal, describe);
      return;
    }
    if (!portal.result && !portal.done) {
      if (maxRows === 0 && (await this.replayCached(portal, describe))) return;
      await this.startQuery(portal);
      if (describe && portal.prepared.fields) be.rowDescription(this.out.w, this.portalFields(portal));
    }
    await this.streamRows(portal, maxRows);
  }

  /**
   * The result cache: a repeatable statement (sql/determinism.ts) already run against this version
   * with the same parameters, formats and output settings is answered with the DataRows recorded
   * then. Otherwise, when the statement is repeatable, its rows are recorded as they stream.
   * Returns true when the portal was answered from the cache.
   */
  private async replayCached(portal: Portal, describe: boolean): Promise<boolean> {
    const prepared = portal.prepared;
    if (!this.results || prepared.cacheableSql === null || portal.rows > 0) return false;
    if (this.settings.get('fdl.result_cache') === 'off') return false;
    if (!this.tx.inBlock) await this.refreshVersion();
    await this.revalidateVersions(prepared);
    const lease = this.lease;
    // A statement prepared before the session's branch moved is never cached under the new version.
    if (!lease || prepared.preparedFor !== lease.versionId) return false;
    if (prepared.repeatable === undefined) {
      prepared.repeatable = !!prepared.analysis && isRepeatable(prepared.analysis, this.results.consistentFunctions, lease.dbName, {
        isVersionTable: (s, t) => lease.hasTable(s, t),
        isVersionFunction: (f) => lease.definesFunction(f),
      });
    }
    if (!prepared.repeatable) return false;
    const key: ResultKey = {
      versionId: lease.versionId,
      database: lease.dbName,
      sql: prepared.cacheableSql,
      settings: this.settings.fingerprint(),
      resultFormats: portal.resultFormats,
      paramFormats: portal.paramFormats,
      params: portal.params,
    };
    const hit = this.results.cache.get(key);
    if (!hit) {
      portal.recording = { recorder: new ResultRecorder(this.results.cache.maxEntryBytes), key };
      return false;
    }
    if (describe && prepared.fields) be.rowDescription(this.out.w, this.portalFields(portal));
    portal.rows = hit.rowCount;
    portal.bytes = hit.rows.length;
    this.checkResultLimits(portal);
    this.out.w.bytes(hit.rows);
    portal.done = true;
    portal.replayed = true;
    be.commandComplete(this.out.w, `SELECT ${hit.rowCount}`);
    return true;
  }

  /** A recorded result is kept only if it ran to the end against the version it was keyed by. */
  private storeRecorded(portal: Portal): void {
    const rec = portal.recording;
    portal.recording = undefined;
    if (!rec || !this.results || this.lease?.versionId !== rec.key.versionId) return;
    const result = rec.recorder.finish(portal.rows);
    if (result) this.results.cache.set(rec.key, result);
  }

  /** Versions are re-checked (expiry, files unchanged; versions/) before a statement runs or is replayed. */
  private async revalidateVersions(prepared: PreparedStmt): Promise<void> {
    if (this.lease) await this.lease.revalidate();
    for (const l of prepared.leases) await l.revalidate();
  }

  private async startQuery(portal: Portal): Promise<void> {
    await this.settle();
    this.interruptOpenPortals(portal);
    const prepared = portal.prepared;
    if (!this.tx.inBlock) await this.refreshVersion();
    await this.revalidateVersions(prepared);
    const values = portal.params.map((raw, i) => {
      const format = (portal.paramFormats.length === 1 ? portal.paramFormats[0] : portal.paramFormats[i] ?? 0) as 0 | 1;
      return decodeParam(prepared.paramOids[i] ?? 0, format, raw ?? null, { timeZone: this.settings.get('timezone') });
    });
    // remote versions: fetch the files these values can reach (may prepare the statement again)
    await fetchForValues(this.planning(), prepared, values);
    const duck = prepared.duck!;
    duck.clearBindings();
    values.forEach(({ value, type }, i) => (value === null ? duck.bindNull(i + 1) : duck.bindValue(i + 1, value, type)));
    this.beginRunning();
    try {
      portal.result = await duck.stream();
      // A cancel or disconnect that arrived while DuckDB was starting the query may have found no
      // active query to interrupt: honour it now, before the first fetch runs the query.
      if (this.cancelRequested || this.aborted || this.timedOut) {
        portal.result = null;
        throw this.interruption();
      }
    } catch (e) {
      this.endRunning();
      throw e;
    }
    // Encode with the result's real types: columns DuckDB could only type now are described from
    // the running result too (portalFields), so description and data agree.
    const types = portal.result.columnTypes();
    const requested = portal.resultFormats.length ? portal.resultFormats : types.map(() => 0 as const);
    portal.encoder = makeRowEncoder(
      types,
      types.map((_, i) => requested[i] ?? 0),
      {
        timeZone: this.settings.get('timezone') ?? 'UTC',
        extraFloatDigits: Number(this.settings.get('extra_float_digits') ?? '1'),
      },
      prepared.columnOids,
    );
  }

  private async streamRows(portal: Portal, maxRows: number): Promise<void> {
    const suspended = await this.pumpRows(portal, maxRows, this.out.w);
    if (suspended) be.portalSuspended(this.out.w);
    else {
      this.storeRecorded(portal);
      be.commandComplete(this.out.w, `SELECT ${portal.rows}`);
    }
  }

  /**
   * Send up to `maxRows` rows (0 = all) of a portal as DataRows into `w` (a scratch writer for
   * MOVE). Returns true when the limit was reached before the end of the result.
   */
  private async pumpRows(portal: Portal, maxRows: number, w: Writer): Promise<boolean> {
    const toClient = w === this.out.w;
    if (portal.interrupted) {
      throw new SqlError(
        '55000',
        'portal cannot be resumed: another statement ran on this connection while it was open',
        'fdl-gateway streams one result at a time per connection; fetch the whole result first, or use another connection.',
      );
    }
    portal.batchRows = 0;
    try {
      if (!this.running) this.beginRunning();
      for (;;) {
        if (!portal.chunk || portal.chunkPos >= portal.chunk.rowCount) {
          portal.chunk = await this.nextChunk(portal);
          portal.chunkPos = 0;
          if (!portal.chunk || portal.chunk.rowCount === 0) {
            portal.done = true;
            portal.result = null;
            portal.chunk = null;
            return false;
          }
          // DuckDB produces the next chunk on its threads while this one is encoded and sent.
          this.prefetch(portal);
        }
        if (this.cancelRequested || this.timedOut) throw this.interruption();
        const available = portal.chunk.rowCount - portal.chunkPos;
        let take = maxRows > 0 ? Math.min(available, maxRows - portal.batchRows) : available;
        // Never send a row past the row cap (across every Execute of the portal): one more is the refusal.
        const cap = this.limits.maxResultRows;
        if (toClient && cap > 0 && portal.rows + take > cap) take = Math.min(take, cap - portal.rows + 1);
        const before = w.length;
        const written = portal.encoder!(portal.chunk, w, portal.chunkPos, portal.chunkPos + take);
        portal.chunkPos += written;
        portal.rows += written;
        portal.batchRows += written;
        if (toClient) {
          portal.bytes += w.length - before;
          // A result that outgrew the cache's entry limit is not recorded further (nor kept).
          this.checkResultLimits(portal, w, before);
          if (portal.recording && !portal.recording.recorder.add(w.raw.subarray(before, w.length))) portal.recording = undefined;
          if (w.length >= FLUSH_BYTES) await this.out.flush();
          if (this.out.closed) throw new SqlError('08006', 'client disconnected');
        } else w.flush();
        if (maxRows > 0 && portal.batchRows >= maxRows) return true;
      }
    } finally {
      this.endRunning();
    }
  }

  /** COPY … TO STDOUT: CopyOutResponse, one CopyData per row, CopyDone, `COPY n`. */
  private async streamCopy(portal: Portal, f: CopyFormat): Promise<void> {
    const w = this.out.w;
    const scratch = new Writer(64 * 1024);
    be.copyOutResponse(w, portal.prepared.columnTypes.length, 0);
    if (f.header) copyHeader(w, portal.prepared.fields!.map((x) => x.name), f);
    let rows = 0;
    try {
      for (;;) {
        const chunk = await this.nextChunk(portal);
        if (chunk && chunk.rowCount > 0) this.prefetch(portal);
        if (!chunk || chunk.rowCount === 0) break;
        if (this.cancelRequested || this.timedOut) throw this.interruption();
        portal.encoder!(chunk, scratch);
        const before = w.length;
        rows += dataRowsToCopy(scratch.flush(), w, f);
        // The row and byte caps hold for COPY as for any result.
        portal.rows = rows;
        portal.bytes += w.length - before;
        this.checkResultLimits(portal, w, before);
        if (w.length >= FLUSH_BYTES) await this.out.flush();
        if (this.out.closed) throw new SqlError('08006', 'client disconnected');
      }
    } finally {
      this.endRunning();
      portal.result = null;
      portal.done = true;
    }
    be.copyDone(w);
    be.commandComplete(w, `COPY ${rows}`);
  }

  /**
   * The row and byte caps. When `w` is given, the rows written since `before` are taken back from
   * the output on refusal, so no more than the caps ever reaches the client.
   */
  private checkResultLimits(portal: Portal, w?: Writer, before = 0): void {
    const { maxResultRows, maxResultBytes } = this.limits;
    const over = (maxResultRows > 0 && portal.rows > maxResultRows) || (maxResultBytes > 0 && portal.bytes > maxResultBytes);
    if (over && w) w.truncate(before);
    if (maxResultRows > 0 && portal.rows > maxResultRows) {
      throw new SqlError('54000', `result exceeds the gateway's limit of ${maxResultRows} rows`, undefined, 'Add a LIMIT or aggregate the result.');
    }
    if (maxResultBytes > 0 && portal.bytes > maxResultBytes) {
      throw new SqlError('54000', `result exceeds the gateway's limit of ${maxResultBytes} bytes`, undefined, 'Select fewer columns or rows.');
    }
  }

  /**
   * DuckDB keeps one open stream per connection: any other statement ends it. A portal whose stream
   * was ended this way must fail when resumed, never look finished (that would be a silent short
   * result).
   */
  private interruptOpenPortals(except: Portal | null): void {
    for (const p of this.portals.values()) {
      if (p === except || p.done || !p.result) continue;
      p.interrupted = true;
      p.result = null;
      p.ahead = [];
    }
  }

  /**
   * Keep PREFETCH_CHUNKS chunks coming: each fetch starts when the previous one ends (DuckDB takes one
   * call at a time per connection), so DuckDB produces while JavaScript encodes and the socket drains.
   */
  private prefetch(portal: Portal): void {
    const result = portal.result;
    if (!result) return;
    // Settled, never rejected: a prefetch nobody consumes (dropped portal) must not go unhandled.
    // The client is gone: no more work for DuckDB (an error, never an early end: that would look
    // like a complete result, e.g. to the result cache).
    const fetch = (): Promise<Fetched> => this.aborted ? Promise.resolve({ chunk: null, error: DISCONNECTED }) : result.fetchChunk().then(
      (chunk) => ({ chunk, error: null as unknown }),
      (error: unknown) => ({ chunk: null, error }),
    );
    while (portal.ahead.length < PREFETCH_CHUNKS) {
      const last = portal.ahead[portal.ahead.length - 1];
      const p = last ? last.then((r) => (r.error || !r.chunk || r.chunk.rowCount === 0 ? END_OF_RESULT : fetch())) : fetch();
      portal.ahead.push(p);
      this.inflight = p;
    }
  }

  private async nextChunk(portal: Portal): Promise<DuckDBDataChunk | null> {
    const pending = portal.ahead.shift();
    if (pending) {
      const { chunk, error } = await pending;
      if (error) throw error;
      return chunk;
    }
    return portal.result ? portal.result.fetchChunk() : null;
  }

  /** Wait for a prefetch still running on the connection (DuckDB runs one call per connection). */
  private async settle(): Promise<void> {
    const p = this.inflight;
    if (p) {
      await p;
      if (this.inflight === p) this.inflight = null;
    }
  }

  /** Why the running statement stops: a typed value, not a marker string. */
  private interruption(): SqlError {
    if (this.aborted) return DISCONNECTED;
    return new SqlError(SQLSTATE.queryCanceled, this.timedOut ? 'canceling statement due to statement timeout' : 'canceling statement due to user request');
  }

  private beginRunning(): void {
    if (this.aborted) throw DISCONNECTED;
    this.running = true;
    const ms = Number(this.settings.get('statement_timeout') ?? '0');
    if (ms > 0) {
      this.statementTimer = setTimeout(() => {
        this.timedOut = true;
        this.conn.interrupt();
      }, ms);
    }
  }

  private endRunning(): void {
    this.running = false;
    if (this.statementTimer) clearTimeout(this.statementTimer);
    this.statementTimer = null;
  }

  /** Branches move: re-resolve at the start of every transaction (each autocommit statement is one). */
  private async refreshVersion(): Promise<void> {
    this.announce(await this.follower.refresh(this.statementSeq, this.tx.inBlock));
  }

  private announce(move: VersionMove | null): void {
    if (!move) return;
    this.notice({ code: '01000', message: `fdl: ${this.repo}@${this.follower.ref} moved from version ${move.from} to ${move.to}` });
  }

  private async runGatewayStatement(portal: Portal, describe: boolean): Promise<void> {
    const w = this.out.w;
    const stmt = portal.prepared.stmt;
    switch (stmt.kind) {
      case 'begin':
      case 'commit':
      case 'rollback':
      case 'savepoint':
      case 'release':
      case 'rollbackTo': {
        const outcome =
          stmt.kind === 'begin' ? this.tx.begin()
          : stmt.kind === 'commit' ? this.tx.commit()
          : stmt.kind === 'rollback' ? this.tx.rollback()
          : stmt.kind === 'savepoint' ? this.tx.savepoint(stmt.name)
          : stmt.kind === 'release' ? this.tx.release(stmt.name)
          : this.tx.rollbackTo(stmt.name);
        if (outcome.warning) this.notice({ severity: 'WARNING', ...outcome.warning });
        if (outcome.begins) {
          await this.refreshVersion(); // a moving ref is re-resolved as the block starts
          this.tx.begun();
        }
        if (outcome.ended) this.closePortalsAtEnd();
        be.commandComplete(w, outcome.tag);
        return;
      }
      case 'set':
        this.settled(await this.setShow.set(stmt.name, stmt.value, this.tx.inBlock));
        be.commandComplete(w, 'SET');
        return;
      case 'setTransaction':
        be.commandComplete(w, 'SET');
        return;
      case 'reset':
        this.settled(await this.setShow.set(stmt.name, null, this.tx.inBlock));
        be.commandComplete(w, 'RESET');
        return;
      case 'resetAll':
        this.settled(await this.setShow.resetAll());
        be.commandComplete(w, 'RESET');
        return;
      case 'show': {
        const value = this.setShow.show(stmt.name);
        if (describe) be.rowDescription(w, portal.prepared.fields!);
        be.dataRowText(w, [value]);
        be.commandComplete(w, 'SHOW');
        return;
      }
      case 'showAll': {
        if (describe) be.rowDescription(w, portal.prepared.fields!);
        for (const row of this.setShow.showAll()) be.dataRowText(w, row);
        be.commandComplete(w, 'SHOW');
        return;
      }
      case 'discardAll':
        if (this.tx.inBlock) throw new SqlError(SQLSTATE.activeTransaction, 'DISCARD ALL cannot run inside a transaction block');
        for (const [name, s] of this.statements) {
          if (s === portal.prepared) continue;
          disposeStatement(s);
          this.statements.delete(name);
        }
        this.clearStatementCache();
        this.settled(await this.setShow.resetAll());
        be.commandComplete(w, 'DISCARD ALL');
        return;
      case 'discard':
        be.commandComplete(w, `DISCARD ${stmt.what === 'TEMPORARY' ? 'TEMP' : stmt.what}`);
        return;
      case 'deallocate':
        if (stmt.name === null) {
          for (const [name, s] of this.statements) {
            if (s === portal.prepared) continue;
            disposeStatement(s);
            this.statements.delete(name);
          }
        } else {
          const s = this.statements.get(stmt.name);
          if (!s) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${stmt.name}" does not exist`);
          disposeStatement(s);
          this.statements.delete(stmt.name);
        }
        be.commandComplete(w, stmt.name === null ? 'DEALLOCATE ALL' : 'DEALLOCATE');
        return;
      case 'prepareSql': {
        if (this.statements.has(stmt.name)) throw new SqlError('42P05', `prepared statement "${stmt.name}" already exists`);
        const inner = classify(stmt.query);
        if (inner.kind === 'refused') throw new SqlError(inner.sqlstate, inner.message);
        if (inner.kind !== 'query') throw new SqlError(SQLSTATE.syntaxError, 'PREPARE needs a query');
        // Admitted like any statement: the one pipeline (analysis, admission, DuckDB prepare).
        const prepared = await this.prepareCached(stmt.query, inner, await this.typeOids(stmt.types));
        this.statements.set(stmt.name, prepared);
        be.commandComplete(w, 'PREPARE');
        return;
      }
      case 'executeSql': {
        const target = this.statements.get(stmt.name);
        if (!target) throw new SqlError(SQLSTATE.invalidSqlStatementName, `prepared statement "${stmt.name}" does not exist`);
        if (stmt.args.length !== target.paramOids.length) {
          throw new SqlError(SQLSTATE.syntaxError, `wrong number of parameters for prepared statement "${stmt.name}"`, `Expected ${target.paramOids.length} parameters but got ${stmt.args.length}.`);
        }
        const params = await this.evaluateArguments(stmt.args);
        const run = this.newPortal(target, params, [0], target.columnTypes.map(() => 0));
        try {
          await this.runPortal(run, 0, describe);
        } finally {
          portal.rows = run.rows;
          this.dropPortal(run);
        }
        return;
      }
      case 'closeCursor':
        if (stmt.name === null) {
          for (const [name, p] of this.portals) {
            if (p === portal) continue;
            this.dropPortal(p);
            this.portals.delete(name);
          }
        } else {
          const p = this.portals.get(stmt.name);
          if (!p) throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${stmt.name}" does not exist`);
          this.dropPortal(p);
          this.portals.delete(stmt.name);
        }
        be.commandComplete(w, stmt.name === null ? 'CLOSE CURSOR ALL' : 'CLOSE CURSOR');
        return;
      case 'declare': {
        if (!this.tx.inBlock && !stmt.hold) throw new SqlError(SQLSTATE.noActiveTransaction, 'DECLARE CURSOR can only be used in transaction blocks');
        if (this.portals.has(stmt.name)) throw new SqlError('42P03', `cursor "${stmt.name}" already exists`);
        // The cursor owns its own prepared statement: it outlives the DECLARE that created it.
        const inner = classify(stmt.query);
        if (inner.kind === 'refused') throw new SqlError(inner.sqlstate, inner.message);
        if (inner.kind !== 'query') throw new SqlError(SQLSTATE.syntaxError, 'DECLARE CURSOR needs a query');
        const prepared = await this.prepare(stmt.query, inner, []);
        const cursor = this.newPortal(prepared, [], [], prepared.columnTypes.map(() => (stmt.binary ? 1 : 0)));
        cursor.cursor = { hold: stmt.hold };
        try {
          await this.startQuery(cursor);
        } catch (e) {
          disposeStatement(prepared);
          throw e;
        }
        this.portals.set(stmt.name, cursor);
        be.commandComplete(w, 'DECLARE CURSOR');
        return;
      }
      case 'fetch': {
        const cursor = this.portals.get(stmt.name);
        if (!cursor?.cursor) throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${stmt.name}" does not exist`);
        if (!stmt.move && describe) {
          be.rowDescription(w, cursor.prepared.fields!.map((f, i) => ({ ...f, format: cursor.resultFormats[i] ?? 0 })));
        }
        const before = cursor.rows;
        if (!cursor.done) await this.pumpRows(cursor, stmt.count ?? 0, stmt.move ? new Writer(64 * 1024) : w);
        be.commandComplete(w, `${stmt.move ? 'MOVE' : 'FETCH'} ${cursor.rows - before}`);
        return;
      }
      case 'unlisten':
        be.commandComplete(w, 'UNLISTEN');
        return;
      case 'listen':
        throw new SqlError(SQLSTATE.featureNotSupported, 'LISTEN/NOTIFY is not supported by fdl-gateway');
      case 'copyOut':
        return; // handled in runPortal
      case 'query':
        return;
    }
  }

  /** PostgreSQL type names of a PREPARE (checked against a strict pattern in classify) as OIDs, as DuckDB reads them. */
  private async typeOids(types: string[]): Promise<number[]> {
    if (types.length === 0) return [];
    let duck: DuckDBPreparedStatement | null = null;
    try {
      duck = await this.conn.prepare(`SELECT ${types.map((t) => `NULL::${t}`).join(', ')}`);
      const d = duck;
      return types.map((_, i) => pgFieldFor(d.columnType(i)).oid);
    } catch (e) {
      throw fromDuckDB(e);
    } finally {
      duck?.destroySync();
    }
  }

  /** EXECUTE's arguments: one admitted SELECT of them, each as PostgreSQL-style text for the parameters. */
  private async evaluateArguments(args: string[]): Promise<(Buffer | null)[]> {
    if (args.length === 0) return [];
    const text = `SELECT ${args.map((a) => `CAST((${a}) AS VARCHAR)`).join(', ')}`;
    const prepared = await this.prepare(text, { kind: 'query', sql: text }, []);
    try {
      const reader = await prepared.duck!.runAndReadAll();
      const row = reader.getRows()[0] ?? [];
      return args.map((_, i) => (row[i] === null || row[i] === undefined ? null : Buffer.from(String(row[i]))));
    } catch (e) {
      throw fromDuckDB(e);
    } finally {
      disposeStatement(prepared);
    }
  }

  /** The transaction block ended: portals and cursors without HOLD close. */
  private closePortalsAtEnd(): void {
    for (const [name, p] of this.portals) {
      if (p.cursor?.hold) continue;
      this.dropPortal(p);
      this.portals.delete(name);
    }
  }

  /** Carry out what a SET / RESET asks of the session. */
  private settled(outcome: SettingOutcome): void {
    if (outcome.warning) this.notice({ severity: 'WARNING', code: '01000', message: outcome.warning });
    if (outcome.forgetStatements) this.clearStatementCache();
  }

  /** Session identity for the catalog emulation; called once the startup settings are applied. */
  async describeSession(database: string, pid: number): Promise<void> {
    await this.settings.describeSession(database, pid, this.versions.repositories());
    if (this.clientAddress) await this.conn.run(`SET VARIABLE pg_client_addr = '${this.clientAddress.replace(/'/g, "''")}'`);
    await this.conn.run(`SET VARIABLE pg_backend_start = '${new Date().toISOString()}'`);
  }

  /** Apply startup parameters (and `options=-c x=y`) the way SET would, without ParameterStatus noise. */
  async applyStartupSetting(name: string, value: string): Promise<void> {
    await this.setShow.applyStartup(name, value);
  }
}

function isExitFromFailed(stmt: Statement): boolean {
  return stmt.kind === 'rollback' || stmt.kind === 'commit' || stmt.kind === 'rollbackTo';
}

function expandFormats(codes: number[], n: number): (0 | 1)[] {
  if (codes.length === 0) return new Array<0 | 1>(n).fill(0);
  if (codes.length === 1) return new Array<0 | 1>(n).fill(codes[0] as 0 | 1);
  return codes as (0 | 1)[];
}

export function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

export function toNotice(e: SqlError): Notice {
  const [first, ...rest] = e.message.split('\n');
  return {
    severity: 'ERROR',
    code: e.sqlstate,
    message: first ?? '',
    detail: e.detail,
    hint: e.hint ?? (rest.length ? rest.join('\n').trim() || undefined : undefined),
  };
}

/** The statement cache's key: the statement's text and the parameter types its Parse declared. */
function statementKey(text: string, declaredTypes: number[]): string {
  return declaredTypes.length === 0 ? text : `${text}\u0000${declaredTypes.join(',')}`;
}
