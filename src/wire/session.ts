/**
 * One client session as the protocol sees it: prepared statements and portals by name, the simple
 * and extended query flows, and the statement's life (the clock is armed and disarmed here only).
 * What to do is decided below wire/ (session/core.ts and its parts: planning, the transaction,
 * cursor, PREPARE and SET interpreters, the statement clock, result-cache policy, audit) and returned
 * as values; portals run in portal-runner.ts, Describe is answered in describe.ts, results stream
 * through result-stream.ts (the portals holding an open result: held-results.ts).
 */
import { checkParamEncoding } from './types/utf8.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { SqlError, SQLSTATE } from '../errors.js';
import type { ServerRoot } from '../engine/duckdb-errors.js';
import { endSession } from '../engine/engine.js';
import { callRunningOn, engineCall, ownEngineCalls } from '../engine/engine-calls.js';
import { EngineInternalError, isInvalidatedMessage } from '../engine/engine-failure.js';
import { instanceOfSession, probeSessionEngine } from '../engine/session-connections.js';
import { memoryTurnsOf } from '../engine/memory-turns.js';
import { splitStatements } from '../text/split.js';
import { firstUnparsable } from '../session/query-syntax.js';
import * as be from './backend.js';
import { dropPortal, newPortal, type Portal } from './portal.js';
import { paramText } from './types/param-text.js';
import { valuesText, withParseNames } from '../session/value-plans.js';
import { holdPortals } from './held-bytes.js';
import { describePortal, describeStatement } from './describe.js';
import { ProtocolObjects } from './protocol-objects.js';
import { ResultStream, type StartCall, type ResultLimits, type SessionOutput } from './result-stream.js';
import { HeldResults } from './held-results.js';
import { deliverOutbox, outboxFirst, readyForQuery } from './outbox-writes.js';
import { toNotice } from './error-notice.js';
import { PortalRunner } from './portal-runner.js';
import { SessionCore } from '../session/core.js';
import type { SessionSettings } from '../session/settings.js';
import { disposeStatement, releaseOperatorState, type PreparedStmt } from '../session/plan.js';
import { isExitFromFailed } from '../session/statement-preparer.js';
import { releaseNativeMemory } from '../session/native-memory.js';
import type { AuditSink } from '../session/audit.js';
import type { SessionResults } from '../session/result-cache-policy.js';
import { userStatements, type NamedLimits } from '../session/named-limits.js';
import { userSettings } from '../session/settings.js';
import { closingAtTransactionEnd } from '../session/cursors.js';
import { type VersionLease, type VersionSource } from '../versions/lease.js';

// The contracts the connection (and the composition root) build a session from, in one place.
export type { VersionLease, VersionSource, SessionResults, SessionOutput };

/** Per-session limits from the gateway configuration (0 = none). */
export interface SessionLimits extends ResultLimits, NamedLimits {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export class Session {
  /** The session below the wire: settings, version, transaction, clock, planning, cache policy, audit. */
  private readonly core: SessionCore;
  readonly settings: SessionSettings;
  /** Prepared statements and portals by name (wire/protocol-objects.ts). */
  private readonly named = new ProtocolObjects();
  private readonly portals = this.named.portals;
  /** Where messages go: the session's pending NOTICEs and ParameterStatus first (session/outbox.ts). */
  private readonly out: SessionOutput;
  /** DataRows, COPY, caps, result-cache replay and recording (wire/result-stream.ts). */
  private readonly stream: ResultStream;
  /** Queries, COPY and the gateway's own statements run and encoded (wire/portal-runner.ts). */
  private readonly runner: PortalRunner;
  /** How recent texts split into statements (`SELECT 1;` → `SELECT 1`): a repeat is not split again. */
  private readonly splits = new LRUCache<string, readonly string[]>({
    max: 256,
    // per session, texts of up to 256 KiB: bounded by bytes too
    maxSize: 4 * 1024 * 1024,
    sizeCalculation: (parts, sql) => 2 * sql.length + parts.reduce((n, p) => n + 2 * p.length, 64),
  });
  /** What the last Query part, Parse, Bind or Execute was about: a failure's audit line fingerprints it. */
  private current: string | PreparedStmt | undefined;
  /** The simple Query running and which of its statements (an error's position is one in its string). */
  private inQuery: { sql: string; parts: readonly string[]; index: number } | null = null;
  private readonly endPressure: () => void;
  /** The server's folders no error text may name (repositories, cache, temp, state). */
  serverRoots: () => readonly ServerRoot[] = () => [];

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly versions: VersionSource,
    readonly repo: string,
    requestedRef: string,
    readonly user: string,
    out: SessionOutput,
    limits: SessionLimits,
    results: SessionResults | null,
    audit: AuditSink = () => undefined,
  ) {
    this.named.caps = limits;
    const core = new SessionCore(conn, versions, repo, requestedRef, user, limits, results, audit);
    this.core = core;
    this.settings = core.settings;
    // Every write first sends what the session has pending for the client, in the order it arose.
    this.out = outboxFirst(core.outbox, out);
    const held = new HeldResults(core.clock, this.portals);
    // The query's start and each chunk fetched wait for a slot of this user (engine/engine-calls.ts).
    const bound = <W>(w: Promise<W>) => core.clock.bound(w);
    // Calls share the instance's memory pool: a start that fails for memory is tried again alone (engine/memory-turns.ts).
    const turns = memoryTurnsOf(instanceOfSession(conn) ?? conn);
    // Under memory pressure, the statements this session keeps and is not running give their last run's memory back.
    this.endPressure = turns.onPressure(() => {
      if (callRunningOn(conn)) return;
      for (const s of this.named.statements.values()) releaseOperatorState(s);
      for (const s of core.preparer.cache.values()) releaseOperatorState(s);
    });
    const call = <T>(work: () => Promise<T>) => turns.shared(conn, () => engineCall(user, conn, work, bound));
    const start: StartCall = (work, own) =>
      turns.start(
        conn,
        () => engineCall(user, conn, work, bound),
        { ...own, stopped: () => core.clock.stopRequested || core.clock.isAborted },
        bound,
      );
    // Its prepares are this user's calls too, in their share and watched for being stuck.
    ownEngineCalls(conn, user, bound);
    this.stream = new ResultStream(this.out, core.clock, limits, core.settings, core.cachePolicy, held, call, start);
    this.runner = new PortalRunner(core, this.out, this.named, this.stream);
    // The prepared-text and parameter budgets are the user's, across their sessions.
    const releaseStatements = userStatements.hold(user, this.named.statements);
    const releaseSettings = userSettings.hold(user, core.settings);
    const releasePortals = holdPortals(user, this.named.portals);
    this.releaseHoldings = () => (releaseStatements(), releaseSettings(), releasePortals());
  }

  /** A statement met an internal error of DuckDB (engine/engine-failure.ts): 'ask' whether the instance survived. */
  private engineSuspect: 'ask' | 'invalidated' | null = null;

  /**
   * Whether DuckDB invalidated this session's instance (then the session must end): known from the
   * last error, or asked of the connection after an internal error. False when nothing failed so.
   */
  get engineSuspected(): boolean {
    return this.engineSuspect !== null;
  }

  async engineInvalidated(): Promise<boolean> {
    const suspect = this.engineSuspect;
    this.engineSuspect = null;
    if (suspect !== 'ask') return suspect === 'invalidated';
    try {
      await probeSessionEngine(this.conn);
      return false;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return isInvalidatedMessage(message) || /instance closed/.test(message);
    }
  }

  /** Takes this session's statements and parameters out of its user's budgets (close). */
  private readonly releaseHoldings: () => void;

  /** Write what the session has pending for the client now. */
  private deliverPending(): void {
    deliverOutbox(this.core.outbox, this.out);
  }

  /** The version the session reads now. */
  get version(): VersionLease | null {
    return this.core.lease();
  }

  /** How long the statement now running has run (ms), or null between statements (status page). */
  get statementRunningMs(): number | null {
    return this.core.clock.runningMs;
  }

  /** The session's application_name (startup parameter or SET), for the status page. */
  get applicationName(): string {
    return String(this.settings.get('application_name') ?? '');
  }

  get transactionStatus(): 'I' | 'T' | 'E' {
    return this.core.tx.status;
  }

  /** The client's port and the address and port it reached: inet_client_port(), inet_server_addr(), inet_server_port(). */
  endpoints: { clientPort: number | null; server: { address: string | null; port: number | null } } = {
    clientPort: null,
    server: { address: null, port: null },
  };

  /** The client's address (the real one behind a PROXY-protocol balancer), for fdl.session and pg_stat_activity. */
  get clientAddress(): string | null {
    return this.core.clientAddress;
  }

  set clientAddress(address: string | null) {
    this.core.clientAddress = address;
  }

  /** Resolve and attach the startup version; errors here end the connection (3D000 etc.). */
  async open(): Promise<void> {
    await this.core.version.open();
    this.deliverPending(); // before the startup's own messages
  }

  async close(): Promise<void> {
    this.endPressure();
    this.releaseHoldings();
    this.core.clock.stop(); // a statement the client left unfinished (extended protocol without Sync)
    await this.stream.settle();
    await this.core.preparer.drained();
    this.named.clear();
    this.core.preparer.cache.clear();
    this.core.version.release();
    // Reset and kept for the next session, or disconnected (engine/session-connections.ts).
    await endSession(this.conn).catch(() => undefined);
    releaseNativeMemory(); // its results' native memory, held until their wrappers are collected
  }

  /** CancelRequest from another socket (or the drain's timeout: `shutdown`): interrupt DuckDB if a query is running. */
  cancel(reason: 'client' | 'shutdown' = 'client'): void {
    this.core.clock.cancel(reason);
  }

  /** The engine's temp directory passed `limit` (engine/temp-ceiling.ts): stop what runs now if it started before `startedBefore` (53100). */
  stopForTempCeiling(limit: string, startedBefore: number): void {
    this.core.clock.stopForTempCeiling(limit, startedBefore);
  }

  /** The process's memory passed the watchdog's line (engine/memory-watchdog.ts): stop what runs now (53200). */
  stopForMemoryCeiling(error: SqlError): void {
    this.core.clock.stopForMemoryCeiling(error);
  }

  /** What the running statement holds by the gateway's accounting (wire/result-stream.ts), for the memory watchdog. */
  get heldBytes(): number {
    return this.stream.heldBytes();
  }

  /** Results held between Executes/FETCHes (their spilled temp stays until they end). */
  get holdsSuspendedResults(): boolean {
    return this.stream.held.suspended().length > 0;
  }

  /** What this session's suspended results hold in the engine (wire/result-stream.ts), for the memory watchdog. */
  get suspendedBytes(): number {
    return this.stream.suspendedBytes();
  }

  /**
   * A ceiling (the temp directory's, memory) was passed while this session is idle: end its suspended
   * results and free what they hold; their next Execute/FETCH fails with `error`. Only while no message is handled.
   * A prefetch running now is interrupted; DuckDB's stream is then ended by another statement on the
   * connection, one that reads nothing (a fetch after an interrupt still returned a chunk and freed nothing).
   */
  async endSuspended(error: SqlError): Promise<void> {
    const ended = this.stream.held.markEnded(error);
    this.conn.interrupt();
    await this.stream.settle();
    this.stream.held.releaseEnded(ended);
    await this.core.preparer.waitIdle(); // a prepare given up on still holds the connection
    await this.conn.run('select 1');
  }

  /**
   * The client is gone: interrupt what runs now and refuse to start anything else, so the DuckDB
   * connection is idle (and can be freed) as soon as the message loop returns.
   */
  abort(): void {
    this.core.clock.abort();
  }
  // ---------------------------------------------------------------- simple query protocol

  async simpleQuery(sql: string): Promise<void> {
    // As PostgreSQL: a Query ends the unnamed portal (never read ahead for nothing).
    if (this.portals.has('')) this.named.dropPortals(['']);
    const parts = this.split(sql);
    if (parts.length === 0) {
      be.emptyQueryResponse(this.out.w);
    }
    // As PostgreSQL, the whole string parses before its first statement runs.
    const unparsable = parts.length > 1 ? await firstUnparsable(parts, this.user) : null;
    if (unparsable !== null) {
      this.statementStarts();
      this.current = parts[unparsable.index];
      this.inQuery = { sql, parts, index: unparsable.index };
      this.fail(unparsable.error);
    }
    // Several statements in one Query run in one implicit transaction: an error skips the rest, and they read one now().
    const ownClock = unparsable === null && parts.length > 1 && !this.core.tx.inBlock;
    if (ownClock) await this.core.openClock();
    for (const [i, text] of (unparsable === null ? parts : []).entries()) {
      this.core.statementSeq++;
      this.current = text;
      this.inQuery = { sql, parts, index: i };
      try {
        this.statementStarts();
        // a text planned before already passed the ceilings and classification
        const prepared = this.core.preparer.reuseCachedNow(text, []) ?? (await this.runner.prepareText(text, [], true));
        const portal = newPortal(prepared, [], [], []);
        this.current = prepared;
        try {
          await this.runner.runLogged(portal, 0, true);
        } catch (e) {
          this.forgetFailed(portal.prepared); // planned in the run if it was answered without a plan
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
    this.inQuery = null;
    if (ownClock && !this.core.tx.inBlock) await this.core.closeClock();
    this.endImplicitTransaction();
    readyForQuery(this.core.outbox, this.out, this.core.tx.status);
    await this.out.flush();
  }

  /** A text's plan: from the statement cache, or classified and planned (the connection freed first when DuckDB plans it). */
  private prepareText(text: string, declaredTypes: number[]): Promise<PreparedStmt> {
    return this.runner.prepareText(text, declaredTypes);
  }

  // ---------------------------------------------------------------- extended query protocol

  // The per-message handlers answer at once when they can (a repeated statement, a cached result)
  // and return a promise only when they must wait: a statement costs few promises on the hot path.

  parse(name: string, sql: string, paramTypes: number[]): Promise<void> | undefined {
    this.statementStarts();
    this.current = sql;
    this.named.checkStatementName(name, sql);
    // A text seen before as one whole statement skips the ceiling check and classification (all
    // already passed for exactly this text): an unnamed repeat costs what a named Bind does.
    // Plans are kept under the split text (`SELECT 1;` → `SELECT 1`), which the split cache gives back.
    let cached = this.core.preparer.reuseCachedNow(sql, paramTypes);
    const text = cached ? sql : this.oneStatement(sql);
    if (!cached && text !== sql) cached = this.core.preparer.reuseCachedNow(text, paramTypes);
    if (cached) {
      this.parsed(name, cached);
      return undefined;
    }
    return (async () => this.parsed(name, await this.prepareText(text, paramTypes)))();
  }

  /** The one statement of a Parse's text (`SELECT 1;` → `SELECT 1`); 42601 for several. */
  private oneStatement(sql: string): string {
    const parts = this.split(sql);
    if (parts.length > 1)
      throw new SqlError(SQLSTATE.syntaxError, 'cannot insert multiple commands into a prepared statement');
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

  bind(
    portalName: string,
    statementName: string,
    paramFormats: number[],
    params: (Buffer | null)[],
    resultFormats: number[],
  ): void {
    this.statementStarts();
    this.current = undefined;
    this.current = this.named.statement(statementName);
    // (a wrong parameter count is named.bind's error, as PostgreSQL checks the count first)
    if (params.length === this.current.paramOids.length)
      checkParamEncoding(paramFormats, params, this.current.paramOids);
    this.named.bind(portalName, statementName, paramFormats, params, resultFormats);
    be.bindComplete(this.out.w);
  }

  describeStatement(name: string): void {
    this.statementStarts();
    describeStatement(this.out.w, this.named.statement(name), this.named);
  }

  describePortal(name: string): Promise<void> | undefined {
    this.statementStarts();
    const portal = this.named.portal(name);
    if (portal.prepared.valuesNeeded)
      return this.planWithValues(portal).then(() => describePortal(this.out.w, portal, this.named, this.runner));
    return describePortal(this.out.w, portal, this.named, this.runner);
  }

  /**
   * A statement that needs its parameters' values (session/value-plans.ts): the portal's values
   * written into the text, and that text planned (from the statement cache when seen before).
   */
  private async planWithValues(portal: Portal): Promise<void> {
    const deferred = portal.prepared;
    const texts = portal.params.map((raw, i) =>
      paramText(
        deferred.paramOids[i] ?? 0,
        (portal.paramFormats.length === 1 ? portal.paramFormats[0] : portal.paramFormats[i]) ?? 0,
        raw,
      ),
    );
    const planned = withParseNames(
      await this.prepareText(valuesText(deferred.sql, deferred.paramOids, texts), []),
      deferred,
    );
    portal.prepared = planned;
    portal.ownsPrepared = true;
    portal.params = [];
    portal.paramFormats = [];
  }

  execute(portalName: string, maxRows: number): Promise<void> | undefined {
    this.statementStarts();
    this.current = undefined;
    const portal = this.named.portal(portalName);
    if (portal.prepared.valuesNeeded) return this.planWithValues(portal).then(() => this.execute(portalName, maxRows));
    this.current = portal.prepared;
    this.core.tx.admits(isExitFromFailed(portal.prepared.stmt));
    const failed = (e: unknown) => {
      this.forgetFailed(portal.prepared);
      throw e;
    };
    // A completed Execute ends the statement; a suspended one runs on until Sync (as PostgreSQL).
    const ran = () => void (portal.done || !portal.result ? this.statementEnds() : undefined);
    try {
      const running = this.runner.runLogged(portal, maxRows > 0 ? maxRows : 0, false);
      return running ? running.then(ran, failed) : ran();
    } catch (e) {
      return failed(e);
    }
  }

  /** A failed or interrupted run's statement is never kept for reuse (session/statement-cache.ts). */
  private forgetFailed(prepared: PreparedStmt): void {
    this.core.preparer.cache.forget(prepared);
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
    readyForQuery(this.core.outbox, this.out, this.core.tx.status);
    return this.out.flush();
  }

  /** Record an error: inside an explicit transaction the transaction becomes failed. */
  fail(e: unknown): void {
    const err = this.core.clock.failure(e);
    // DuckDB's own assertion failed: the connection asks whether the instance survived it
    if (err instanceof EngineInternalError) this.engineSuspect = err.invalidated ? 'invalidated' : 'ask';
    this.statementEnds(); // an error ends the statement (the extended protocol then skips to Sync)
    this.core.tx.fail();
    this.core.audit.failed(err, this.current);
    const clientText = typeof this.current === 'string' ? this.current : this.current?.sql;
    this.current = undefined;
    const notice = toNotice(err, this.serverRoots(), clientText);
    // a position in the Query's string, as PostgreSQL's, not in the one statement of it that failed
    if (notice.position !== undefined && this.inQuery)
      notice.position += offsetIn(this.inQuery.sql, this.inQuery.parts, this.inQuery.index);
    be.errorResponse(this.out.w, notice);
  }

  // ---------------------------------------------------------------- internals

  /**
   * The statement clock's one owner, as PostgreSQL: a statement starts with each statement of a Query,
   * or the first Parse/Bind/Describe/Execute; it ends with it, a completed Execute, an error or Sync.
   * Between statements nothing is timed and a cancel is ignored, even with a cursor's stream open.
   */
  private statementStarts(): void {
    if (this.core.clock.isRunning) return;
    this.core.statementSeq++; // the ref is checked, and versions re-checked, once per statement
    this.core.clock.start();
  }

  private statementEnds(): void {
    this.core.clock.stop();
  }

  /** Implicit transactions (autocommit) end at Sync / end of a simple Query: portals and cursors without HOLD close. */
  private endImplicitTransaction(): void {
    if (!this.core.tx.inBlock && this.portals.size > 0) this.named.dropPortals(closingAtTransactionEnd(this.portals));
  }

  /** Session identity for the catalog emulation; called once the startup settings are applied. */
  async describeSession(database: string, pid: number): Promise<void> {
    const more: [string, string][] = [['pg_backend_start', new Date().toISOString()]];
    if (this.core.clientAddress) more.push(['pg_client_addr', this.core.clientAddress]);
    const { clientPort, server } = this.endpoints;
    if (clientPort !== null) more.push(['pg_client_port', String(clientPort)]);
    // as PostgreSQL shows an IPv4 peer on a dual-stack socket: without the IPv4-mapped prefix
    if (server.address) more.push(['pg_server_addr', server.address.replace(/^::ffff:(?=\d+\.)/i, '')]);
    if (server.port !== null) more.push(['pg_server_port', String(server.port)]);
    // pg_database: only the databases the user may connect to (and the session's own)
    const databases = await this.versions.databases(this.user);
    await this.settings.describeSession(database, pid, databases, more);
    this.deliverPending(); // before the startup's own messages
  }

  /** A reported parameter's value sent at startup: later ParameterStatus only where it changes from it. */
  toldAtStartup(name: string, value: string): void {
    this.core.outbox.told(name, value);
  }

  /** Apply startup parameters (and `options=-c x=y`) the way SET would, without ParameterStatus noise. */
  async applyStartupSetting(name: string, value: string): Promise<void> {
    await this.core.setShow.applyStartup(name, value);
  }
}

/**
 * Characters (code points, as PostgreSQL counts a position) of a simple Query's string `sql` before its
 * statement `parts[index]` (the split keeps each statement's text as sent; 0 where it cannot be found).
 */
function offsetIn(sql: string, parts: readonly string[], index: number): number {
  let from = 0;
  for (let i = 0; i <= index; i++) {
    const at = sql.indexOf(parts[i]!, from);
    if (at < 0) return 0;
    if (i === index) return codePoints(sql, at);
    from = at + parts[i]!.length;
  }
  return 0;
}

function codePoints(text: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++; // a low surrogate completes the character counted with its high one
  }
  return n;
}
