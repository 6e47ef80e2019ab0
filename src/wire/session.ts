/**
 * One client session as the protocol sees it: prepared statements and portals by name, the simple
 * and extended query flows, and what each statement's outcome becomes on the wire. What to do is
 * decided below wire/ (session/: planning, the transaction, cursor, PREPARE and SET interpreters,
 * the statement clock, result-cache policy, audit) and returned as values; results stream through
 * result-stream.ts.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { SqlError, SQLSTATE } from '../errors.js';
import { hideServerRoots, type ServerRoot } from '../engine/duckdb-errors.js';
import { splitStatements } from '../text/split.js';
import * as be from './backend.js';
import type { Notice } from './backend.js';
import { dropPortal, expandFormats, newPortal, portalFields, type Portal } from './portal.js';
import { cursorFields, fetchCursor, newCursorState, parkCursor, protocolPortalCursor } from './cursor-rows.js';
import { ProtocolObjects } from './protocol-objects.js';
import { ResultStream, type ResultLimits, type SessionOutput } from './result-stream.js';
import { SessionSettings } from '../session/settings.js';
import { Transaction } from '../session/transaction.js';
import { SessionVersion } from '../session/session-version.js';
import { SetShow, type SettingOutcome } from '../session/set-show.js';
import { disposeStatement, type PreparedStmt } from '../session/planner.js';
import { isExitFromFailed, StatementPreparer } from '../session/statement-preparer.js';
import { StatementClock } from '../session/statement-clock.js';
import { releaseNativeMemory } from '../session/native-memory.js';
import { StatementAudit, type AuditSink } from '../session/audit.js';
import { ResultCachePolicy, type SessionResults } from '../session/result-cache-policy.js';
import { closingAtTransactionEnd, fetchTag, interpretCursor } from '../session/cursors.js';
import { declaredTypeOids, evaluateArguments, interpretDeallocate, interpretDiscardAll, interpretExecute, interpretPrepare } from '../session/prepared-sql.js';
import { type VersionLease, type VersionSource } from '../versions/lease.js';

// The contracts the connection (and the composition root) build a session from, in one place.
export type { VersionLease, VersionSource, SessionResults, SessionOutput };

/** Per-session limits from the gateway configuration (0 = none). */
export interface SessionLimits extends ResultLimits {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** Named prepared statements (Parse, PREPARE) a session may hold (default 1000). */
  maxPreparedStatements?: number;
  /** Named portals and cursors (Bind, DECLARE) a session may hold (default 1000). */
  maxPortals?: number;
}

export class Session {
  readonly settings: SessionSettings;
  /** Which version the session reads, following a moving ref (session/session-version.ts). */
  private readonly versionView: SessionVersion;
  /** SET / SHOW / RESET (session/set-show.ts). */
  private readonly setShow: SetShow;
  /** Prepared statements and portals by name (wire/protocol-objects.ts). */
  private readonly named = new ProtocolObjects();
  private readonly statements = this.named.statements;
  private readonly portals = this.named.portals;
  /** Planning, with the statement cache by text (session/statement-preparer.ts). */
  private readonly preparer: StatementPreparer;
  /** How recent texts split into statements (`SELECT 1;` → `SELECT 1`): a repeat is not split again. */
  private readonly splits = new LRUCache<string, readonly string[]>({ max: 256 });
  /** Transaction and savepoint state (session/transaction.ts). */
  private readonly tx = new Transaction();
  /** statement_timeout, CancelRequest, the temp ceiling, the client leaving (session/statement-clock.ts). */
  private readonly clock: StatementClock;
  /** DataRows, COPY, caps, result-cache replay and recording (wire/result-stream.ts). */
  private readonly stream: ResultStream;
  /** Which runs the result cache answers or records (session/result-cache-policy.ts). */
  private readonly cachePolicy: ResultCachePolicy;
  /** One line per statement (session/audit.ts). */
  private readonly audit: StatementAudit;
  /** Counts statements (simple-query parts, Parse, Execute) so a branch is re-resolved once per statement. */
  private statementSeq = 0;
  /** What the last Query part, Parse, Bind or Execute was about: a failure's audit line fingerprints it. */
  private current: string | PreparedStmt | undefined;
  /** The client's address (the real one behind a PROXY-protocol balancer), for fdl.session and pg_stat_activity. */
  clientAddress: string | null = null;
  /** The server's folders no error text may name (repositories, cache, temp, state). */
  serverRoots: () => readonly ServerRoot[] = () => [];

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly versions: VersionSource,
    readonly repo: string,
    requestedRef: string,
    readonly user: string,
    private readonly out: SessionOutput,
    limits: SessionLimits,
    results: SessionResults | null,
    audit: AuditSink = () => undefined,
  ) {
    this.named.caps = limits;
    this.settings = new SessionSettings(conn, user, limits, (name, value) => be.parameterStatus(this.out.w, name, value));
    this.versionView = new SessionVersion(conn, versions, repo, user, requestedRef, this.settings, () => this.preparer.cache.clear());
    this.setShow = new SetShow(this.settings, this.versionView.follower, repo);
    // An interrupted DuckDB stream reads as ended: its open portals are told why.
    const interrupt = () => this.stream.stopOpenPortals(this.clock.interruption(), () => this.conn.interrupt());
    this.clock = new StatementClock(interrupt, () => Number(this.settings.get('statement_timeout') ?? '0'));
    this.cachePolicy = new ResultCachePolicy(results);
    this.stream = new ResultStream(out, this.clock, limits, this.settings, this.cachePolicy, () => this.portals.values(), () => this.lease?.versionId);
    this.preparer = new StatementPreparer({
      conn, versions, repo, user, settings: this.settings, clock: this.clock, tx: this.tx,
      cachesResults: results !== null,
      lease: () => this.lease,
      refreshVersion: () => this.refreshVersion(),
      versionStaysPut: () => this.versionView.staysPut(this.statementSeq, this.tx.inBlock),
      settleStreams: () => this.stream.settle(),
      endOpenStreams: () => this.endStreamsBut(null),
      sessionTable: () => this.versionView.sessionTable(this.clientAddress, this.tx.inBlock),
      notice: (message) => this.notice({ code: '00000', message }),
    });
    this.audit = new StatementAudit(audit, () => ({ user: this.user, database: this.repo, ref: this.versionView.follower.ref, version: this.lease?.versionId }));
  }

  /** The version the session reads now. */
  get version(): VersionLease | null {
    return this.versionView.lease;
  }

  private get lease(): VersionLease | null {
    return this.versionView.lease;
  }

  /** How long the statement now running has run (ms), or null between statements (status page). */
  get statementRunningMs(): number | null {
    return this.clock.runningMs;
  }

  /** The session's application_name (startup parameter or SET), for the status page. */
  get applicationName(): string {
    return String(this.settings.get('application_name') ?? '');
  }

  get transactionStatus(): 'I' | 'T' | 'E' {
    return this.tx.status;
  }

  /** Resolve and attach the startup version; errors here end the connection (3D000 etc.). */
  async open(): Promise<void> {
    await this.versionView.open();
  }

  async close(): Promise<void> {
    this.clock.stop(); // a statement the client left unfinished (extended protocol without Sync)
    await this.stream.settle();
    await this.preparer.drained();
    this.named.clear();
    this.preparer.cache.clear();
    this.versionView.release();
    try {
      this.conn.disconnectSync();
    } catch {
      /* already gone */
    }
    releaseNativeMemory(); // its results' native memory, held until their wrappers are collected
  }

  /** CancelRequest from another socket (or the drain's timeout: `shutdown`): interrupt DuckDB if a query is running. */
  cancel(reason: 'client' | 'shutdown' = 'client'): void {
    this.clock.cancel(reason);
  }

  /** The engine's temp directory passed `limit` (sql/temp-ceiling.ts): stop what runs now if it started before `startedBefore` (53100). */
  stopForTempCeiling(limit: string, startedBefore: number): void {
    this.clock.stopForTempCeiling(limit, startedBefore);
  }

  /** Results held between Executes/FETCHes (their spilled temp stays until they end). */
  get holdsSuspendedResults(): boolean {
    return this.stream.suspended().length > 0;
  }

  /**
   * The temp directory passed `limit` while this session is idle: end its suspended results and
   * free their temp; their next Execute/FETCH fails with 53100. Only while no message is handled.
   */
  async endSuspendedForTempCeiling(limit: string): Promise<void> {
    // Ending DuckDB's stream takes another statement on the connection: one that reads nothing.
    const endStream = async () => {
      await this.preparer.waitIdle(); // a prepare given up on still holds the connection
      await this.conn.run('select 1');
    };
    await this.stream.endSuspended(limit, () => this.conn.interrupt(), endStream);
  }

  /**
   * The client is gone: interrupt what runs now and refuse to start anything else, so the DuckDB
   * connection is idle (and can be freed) as soon as the message loop returns.
   */
  abort(): void {
    this.clock.abort();
  }
  // ---------------------------------------------------------------- simple query protocol

  async simpleQuery(sql: string): Promise<void> {
    const parts = this.split(sql);
    if (parts.length === 0) {
      be.emptyQueryResponse(this.out.w);
    }
    // Several statements in one Query run in one implicit transaction: an error skips the rest.
    for (const text of parts) {
      this.statementSeq++;
      this.current = text;
      try {
        this.statementStarts();
        // a text planned before already passed the ceilings and classification
        const prepared = this.preparer.reuseCachedNow(text, []) ?? (await this.preparer.reuseCached(text, [])) ?? (await this.preparer.prepareText(text, []));
        const portal = newPortal(prepared, [], [], []);
        this.current = prepared;
        try {
          await this.runLogged(portal, 0, true);
        } catch (e) {
          this.forgetFailed(prepared);
          throw e;
        } finally {
          dropPortal(portal);
          disposeStatement(prepared);
        }
      } catch (e) {
        this.fail(e);
        break;
      } finally {
        this.statementEnds(); // each statement of a Query is timed on its own (PostgreSQL 13+)
      }
    }
    this.endImplicitTransaction();
    be.readyForQuery(this.out.w, this.tx.status);
    await this.out.flush();
  }

  // ---------------------------------------------------------------- extended query protocol

  // The per-message handlers answer at once when they can (a repeated statement, a cached result)
  // and return a promise only when they must wait: a statement costs few promises on the hot path.

  parse(name: string, sql: string, paramTypes: number[]): Promise<void> | undefined {
    this.statementSeq++;
    this.statementStarts();
    this.current = sql;
    this.named.checkStatementName(name);
    // A text seen before as one whole statement skips the ceiling check and classification (all
    // already passed for exactly this text): an unnamed repeat costs what a named Bind does.
    // Plans are kept under the split text (`SELECT 1;` → `SELECT 1`), which the split cache gives back.
    let cached = this.preparer.reuseCachedNow(sql, paramTypes);
    const text = cached ? sql : this.oneStatement(sql);
    if (!cached && text !== sql) cached = this.preparer.reuseCachedNow(text, paramTypes);
    if (cached) {
      this.parsed(name, cached);
      return undefined;
    }
    return (async () => this.parsed(name, (await this.preparer.reuseCached(text, paramTypes)) ?? (await this.preparer.prepareText(text, paramTypes))))();
  }

  /** The one statement of a Parse's text (`SELECT 1;` → `SELECT 1`); 42601 for several. */
  private oneStatement(sql: string): string {
    const parts = this.split(sql);
    if (parts.length > 1) throw new SqlError(SQLSTATE.syntaxError, 'cannot insert multiple commands into a prepared statement');
    return parts[0] ?? '';
  }

  private parsed(name: string, prepared: PreparedStmt): void {
    this.named.setStatement(name, prepared);
    be.parseComplete(this.out.w);
  }

  /** The statements of a text; short texts remembered (splitting is a pure function of the text). */
  private split(sql: string): readonly string[] {
    const known = this.splits.get(sql);
    if (known) return known;
    const parts = splitStatements(sql);
    if (sql.length <= 4096) this.splits.set(sql, parts);
    return parts;
  }

  bind(portalName: string, statementName: string, paramFormats: number[], params: (Buffer | null)[], resultFormats: number[]): void {
    this.statementStarts();
    this.current = undefined;
    this.current = this.named.statement(statementName);
    this.named.bind(portalName, statementName, paramFormats, params, resultFormats);
    be.bindComplete(this.out.w);
  }

  describeStatement(name: string): void {
    this.statementStarts();
    const prepared = this.named.statement(name);
    be.parameterDescription(this.out.w, prepared.paramOids);
    const cursor = this.fetched(prepared);
    if (cursor) be.rowDescription(this.out.w, cursorFields(cursor, []));
    else if (prepared.fields && prepared.fields.length > 0 && prepared.stmt.kind !== 'copyOut') be.rowDescription(this.out.w, prepared.fields);
    else be.noData(this.out.w);
  }

  describePortal(name: string): Promise<void> | undefined {
    this.statementStarts();
    const portal = this.named.portal(name);
    const cursor = this.fetched(portal.prepared);
    if (cursor) {
      be.rowDescription(this.out.w, cursorFields(cursor, expandFormats(portal.resultFormats, cursor.prepared.columnTypes.length)));
      return undefined;
    }
    const fields = portal.prepared.fields;
    if (!fields || fields.length === 0 || portal.prepared.stmt.kind === 'copyOut') {
      be.noData(this.out.w);
      return undefined;
    }
    // Columns typed only by the bound parameters: run the portal now and describe what it yields.
    if (portal.prepared.untyped.size > 0 && !portal.result && !portal.done) {
      return this.startQuery(portal).then(() => be.rowDescription(this.out.w, portalFields(portal)));
    }
    be.rowDescription(this.out.w, portalFields(portal));
    return undefined;
  }

  /** The cursor a FETCH (not MOVE) reads, if it exists now: its rows are what the FETCH describes. */
  private fetched(prepared: PreparedStmt): Portal | undefined {
    const stmt = prepared.stmt;
    if (stmt.kind !== 'fetch' || stmt.move) return undefined;
    const cursor = this.portals.get(stmt.name);
    return cursor && stmt.name !== '' && cursor.prepared.stmt.kind === 'query' && cursor.prepared.fields?.length ? cursor : undefined;
  }

  execute(portalName: string, maxRows: number): Promise<void> | undefined {
    this.statementSeq++;
    this.statementStarts();
    this.current = undefined;
    const portal = this.named.portal(portalName);
    this.current = portal.prepared;
    this.tx.admits(isExitFromFailed(portal.prepared.stmt));
    const failed = (e: unknown) => {
      this.forgetFailed(portal.prepared);
      throw e;
    };
    // A completed Execute ends the statement; a suspended one runs on until Sync (as PostgreSQL).
    const ran = () => void (portal.done || !portal.result ? this.statementEnds() : undefined);
    try {
      const running = this.runLogged(portal, maxRows > 0 ? maxRows : 0, false);
      return running ? running.then(ran, failed) : ran();
    } catch (e) {
      return failed(e);
    }
  }

  /** A failed or interrupted run's statement is never kept for reuse (session/statement-cache.ts). */
  private forgetFailed(prepared: PreparedStmt): void {
    this.preparer.cache.forget(prepared);
  }

  closeStatement(name: string): void {
    this.named.dropStatements([name]);
    be.closeComplete(this.out.w);
  }

  closePortal(name: string): void {
    this.named.dropPortals([name]);
    be.closeComplete(this.out.w);
  }

  /** Sync: end an implicit transaction and report status. */
  sync(): Promise<void> | undefined {
    this.statementEnds();
    this.endImplicitTransaction();
    be.readyForQuery(this.out.w, this.tx.status);
    return this.out.flush();
  }

  /** Record an error: inside an explicit transaction the transaction becomes failed. */
  fail(e: unknown): void {
    const err = this.clock.failure(e);
    this.statementEnds(); // an error ends the statement (the extended protocol then skips to Sync)
    this.tx.fail();
    this.audit.failed(err, this.current);
    this.current = undefined;
    be.errorResponse(this.out.w, toNotice(err, this.serverRoots()));
  }

  // ---------------------------------------------------------------- internals

  /**
   * The statement clock's one owner, as PostgreSQL: a statement starts with each statement of a Query,
   * or the first Parse/Bind/Describe/Execute; it ends with it, a completed Execute, an error or Sync.
   * Between statements nothing is timed and a cancel is ignored, even with a cursor's stream open.
   */
  private statementStarts(): void {
    if (!this.clock.isRunning) this.clock.start();
  }

  private statementEnds(): void {
    this.clock.stop();
  }

  private notice(n: Omit<Notice, 'severity'> & { severity?: Notice['severity'] }): void {
    be.noticeResponse(this.out.w, { severity: 'NOTICE', ...n });
  }

  /** Implicit transactions (autocommit) end at Sync / end of a simple Query. */
  private endImplicitTransaction(): void {
    if (!this.tx.inBlock) this.closePortalsAtEnd();
  }

  /** The transaction ended: portals and cursors without HOLD close. */
  private closePortalsAtEnd(): void {
    if (this.portals.size > 0) this.named.dropPortals(closingAtTransactionEnd(this.portals));
  }

  /** Run a portal and write one audit line: who, which version, how long, how many rows (errors: see fail). */
  private runLogged(portal: Portal, maxRows: number, describe: boolean): Promise<void> | undefined {
    const started = process.hrtime.bigint();
    const rowsBefore = portal.rows;
    const logged = () => this.audit.succeeded(portal.prepared, Number(process.hrtime.bigint() - started) / 1e6, portal.rows - rowsBefore, !!portal.replayed);
    const running = this.runPortal(portal, maxRows, describe);
    if (running) return running.then(logged);
    logged();
    return undefined;
  }

  /**
   * Run (or resume) a portal. `describe` is true for simple Query, where RowDescription precedes
   * the rows; in the extended protocol the client asked with Describe (or already knows). Answered
   * at once (undefined) from the result cache when nothing needs re-checking first.
   */
  private runPortal(portal: Portal, maxRows: number, describe: boolean): Promise<void> | undefined {
    const prepared = portal.prepared;
    if (prepared.stmt.kind !== 'query' || prepared.sql === '') return this.runOther(portal, describe);
    this.stream.assertResumable(portal); // never start an ended portal's query again
    if (portal.result || portal.done || maxRows !== 0) return this.runQuery(portal, maxRows, describe);
    const replayed = this.replayCached(portal, describe);
    if (replayed === true) return undefined;
    if (replayed === false) return this.runQuery(portal, maxRows, describe);
    return replayed.then((hit) => (hit ? undefined : this.runQuery(portal, maxRows, describe)));
  }

  /** Start (unless resumed) and stream a query's rows. */
  private async runQuery(portal: Portal, maxRows: number, describe: boolean): Promise<void> {
    if (!portal.result && !portal.done) {
      await this.startQuery(portal);
      if (describe && portal.prepared.fields) be.rowDescription(this.out.w, portalFields(portal));
    }
    await this.stream.send(portal, maxRows);
  }

  /** COPY … TO STDOUT, an empty query, or a statement the gateway answers itself. */
  private async runOther(portal: Portal, describe: boolean): Promise<void> {
    const stmt = portal.prepared.stmt;
    if (stmt.kind === 'copyOut') {
      portal.resultFormats = portal.prepared.columnTypes.map(() => 0);
      await this.startQuery(portal);
      await this.stream.copy(portal, { format: stmt.format, header: stmt.header, delimiter: stmt.delimiter ?? (stmt.format === 'csv' ? ',' : '\t') });
      return;
    }
    if (stmt.kind === 'query') be.emptyQueryResponse(this.out.w); // the empty statement
    else await this.runGatewayStatement(portal, describe);
  }

  /**
   * The result cache (session/result-cache-policy.ts): answer the portal from it (true), or start
   * recording its rows as they stream, or neither (false); a promise of that when the version must
   * be re-resolved or re-checked first.
   */
  private replayCached(portal: Portal, describe: boolean): boolean | Promise<boolean> {
    const prepared = portal.prepared;
    if (!this.cachePolicy.applies(prepared, this.settings, portal.rows)) return false;
    const refreshing = this.tx.inBlock ? undefined : this.refreshVersion();
    if (refreshing) {
      return refreshing.then(() => this.versionView.revalidate(prepared.leases, prepared.reads)).then(() => this.answerFromCache(portal, describe));
    }
    const checking = this.versionView.revalidate(prepared.leases, prepared.reads);
    return checking ? checking.then(() => this.answerFromCache(portal, describe)) : this.answerFromCache(portal, describe);
  }

  private answerFromCache(portal: Portal, describe: boolean): boolean {
    const decision = this.cachePolicy.decide(portal.prepared, this.lease, this.settings, portal);
    if (decision.kind === 'record') portal.recording = decision.recording;
    if (decision.kind !== 'hit') return false;
    this.stream.replay(portal, decision.result, describe);
    return true;
  }

  /** Start a portal's query: other open streams end, the version is re-checked, then DuckDB runs it. */
  private async startQuery(portal: Portal): Promise<void> {
    await this.stream.settle();
    await this.preparer.waitIdle(); // a prepare given up on still holds the DuckDB connection
    await this.endStreamsBut(portal);
    if (!this.tx.inBlock) await this.refreshVersion();
    await this.versionView.revalidate(portal.prepared.leases, portal.prepared.reads);
    await this.stream.open(portal, (values) => this.preparer.fetchForValues(portal.prepared, values));
  }

  /**
   * Branches move: re-resolve at the start of every transaction (each autocommit statement is one).
   * undefined, without a promise, when the session certainly stays on its version (the usual case).
   */
  private refreshVersion(): Promise<void> | undefined {
    if (this.versionView.staysPut(this.statementSeq, this.tx.inBlock)) return undefined;
    return this.versionView.refresh(this.statementSeq, this.tx.inBlock).then((moved) => {
      if (moved) this.notice({ code: '01000', message: moved });
    });
  }

  /** Carry out the outcome of a statement the gateway answers itself (session/ interprets, the wire encodes). */
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
        await this.endOpenStreams();
        this.settled(await this.setShow.set(stmt.name, stmt.value, this.tx.inBlock));
        be.commandComplete(w, 'SET');
        return;
      case 'setTransaction':
        be.commandComplete(w, 'SET');
        return;
      case 'reset':
        await this.endOpenStreams();
        this.settled(await this.setShow.set(stmt.name, null, this.tx.inBlock));
        be.commandComplete(w, 'RESET');
        return;
      case 'resetAll':
        await this.endOpenStreams();
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
        this.named.dropStatements(interpretDiscardAll(this.statements, this.tx.inBlock, portal.prepared));
        this.preparer.cache.clear();
        await this.endOpenStreams();
        this.settled(await this.setShow.resetAll());
        be.commandComplete(w, 'DISCARD ALL');
        return;
      case 'discard':
        be.commandComplete(w, `DISCARD ${stmt.what === 'TEMPORARY' ? 'TEMP' : stmt.what}`);
        return;
      case 'deallocate': {
        const { names, tag } = interpretDeallocate(stmt, this.statements, portal.prepared);
        this.named.dropStatements(names);
        be.commandComplete(w, tag);
        return;
      }
      case 'prepareSql': {
        const { name, query, stmt: inner, types } = interpretPrepare(stmt, this.statements);
        this.named.roomForStatement(name);
        await this.endOpenStreams(); // its declared types are prepared on the connection
        // Admitted like any statement: the one pipeline (analysis, admission, DuckDB prepare).
        const prepared = await this.preparer.prepareCached(query, inner, await declaredTypeOids(this.conn, types));
        this.statements.set(name, prepared);
        be.commandComplete(w, 'PREPARE');
        return;
      }
      case 'executeSql': {
        const target = interpretExecute(stmt, this.statements);
        const params = await evaluateArguments(stmt.args, (text) => this.preparer.prepare(text, { kind: 'query', sql: text }, []));
        const run = newPortal(target, params, [0], target.columnTypes.map(() => 0));
        try {
          await this.runPortal(run, 0, describe);
        } finally {
          portal.rows = run.rows;
          dropPortal(run);
        }
        return;
      }
      case 'declare':
      case 'fetch':
      case 'closeCursor': {
        const action = interpretCursor(stmt, this.portals, this.tx.inBlock, portal);
        if (action.kind === 'close') {
          this.named.dropPortals(action.names);
          be.commandComplete(w, action.tag);
        } else if (action.kind === 'declare') {
          this.named.roomForPortal(action.name);
          // The cursor holds its own reference to the query planned with the DECLARE (and its parameters).
          const prepared = portal.prepared.cursorQuery ?? (await this.preparer.prepare(action.query, action.stmt, []));
          if (prepared === portal.prepared.cursorQuery) prepared.refs++;
          const cursor = newPortal(prepared, portal.params, portal.paramFormats, prepared.columnTypes.map(() => (action.binary ? 1 : 0)));
          cursor.cursor = newCursorState(action.hold, action.scroll);
          try {
            await this.startQuery(cursor);
          } catch (e) {
            disposeStatement(prepared);
            throw e;
          }
          this.portals.set(action.name, cursor);
          be.commandComplete(w, action.tag);
        } else {
          const cursor = action.cursor;
          if (!cursor.cursor) {
            if (cursor.prepared.stmt.kind !== 'query' || !cursor.prepared.fields?.length) throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${action.name}" does not exist`);
            if (!cursor.result && !cursor.done) await this.startQuery(cursor);
            cursor.cursor = protocolPortalCursor(cursor);
          }
          // Simple Query: the cursor's own formats (BINARY); extended: the FETCH portal's, as PostgreSQL.
          const formats = describe ? cursor.resultFormats : expandFormats(portal.resultFormats, cursor.prepared.columnTypes.length);
          if (!action.move && describe) be.rowDescription(w, cursorFields(cursor, formats));
          const n = await fetchCursor(this.stream, cursor, action.name, action.direction, action.move, w, formats);
          portal.rows = n;
          be.commandComplete(w, fetchTag(action.move, n));
        }
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

  /** Before the gateway runs a statement of its own on DuckDB (SET mirrors there): open streams end, their portals fail when resumed. */
  private async endOpenStreams(): Promise<void> {
    await this.stream.settle(); // a prefetch still running (a prepare given up on ended the streams already)
    await this.endStreamsBut(null);
  }

  /** Another statement runs on the connection: open cursors read their rest first (cursor-rows.ts), other open streams end. */
  private async endStreamsBut(except: Portal | null): Promise<void> {
    for (const p of this.portals.values()) if (p !== except && p.cursor?.declared && p.result && !p.done && !p.interrupted) await parkCursor(this.stream, p);
    await this.stream.settle(); // a chunk fetched ahead for a cursor that stopped at the cap
    this.stream.interruptOpenPortals(except);
  }

  /** Carry out what a SET / RESET asks of the session. */
  private settled(outcome: SettingOutcome): void {
    if (outcome.warning) this.notice({ severity: 'WARNING', code: '01000', message: outcome.warning });
    if (outcome.forgetStatements) this.preparer.cache.clear();
  }

  /** Session identity for the catalog emulation; called once the startup settings are applied. */
  async describeSession(database: string, pid: number): Promise<void> {
    await this.settings.describeSession(database, pid, this.versions.repositories(this.user)); // pg_database: only what the user may see
    if (this.clientAddress) await this.conn.run(`SET VARIABLE pg_client_addr = '${this.clientAddress.replace(/'/g, "''")}'`);
    await this.conn.run(`SET VARIABLE pg_backend_start = '${new Date().toISOString()}'`);
  }

  /** Apply startup parameters (and `options=-c x=y`) the way SET would, without ParameterStatus noise. */
  async applyStartupSetting(name: string, value: string): Promise<void> {
    await this.setShow.applyStartup(name, value);
  }
}

/** What the client is told of an error: its texts never name a folder of the server (`roots`). */
export function toNotice(e: SqlError, roots: readonly ServerRoot[] = []): Notice {
  const [first, ...rest] = e.message.split('\n');
  const hide = (t: string | undefined) => (t === undefined || roots.length === 0 ? t : hideServerRoots(t, roots));
  return {
    severity: 'ERROR',
    code: e.sqlstate,
    message: hide(first ?? '')!,
    detail: hide(e.detail),
    hint: hide(e.hint ?? (rest.length ? rest.join('\n').trim() || undefined : undefined)),
  };
}
