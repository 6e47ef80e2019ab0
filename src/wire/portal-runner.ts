/**
 * Running a portal on the wire: a query's rows from DuckDB or from the result cache, COPY … TO
 * STDOUT, and the outcome of a statement the gateway answers itself (session/statements.ts decides,
 * this encodes). DuckDB keeps one open stream per connection: before anything else runs on it, open
 * cursors read their rest and other streams end (freeConnection).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { SessionCore } from '../session/core.js';
import { fetchTag } from '../session/cursors.js';
import { disposeStatement, type PreparedStmt } from '../session/plan.js';
import { valuesText, withParseNames } from '../session/value-plans.js';
import { plansOnDuckDB } from '../session/statement-preparer.js';
import { isGatewayStatement, runStatement, usesConnection, type StatementOutcome } from '../session/statements.js';
import * as be from './backend.js';
import {
  cursorFields,
  fetchCursor,
  hasKeptRows,
  keptBytes,
  newCursorState,
  parkCursor,
  protocolPortalCursor,
  sendKeptRows,
  SESSION_KEPT_BYTES,
} from './cursor-rows.js';
import { heldByUser, keepWithinUserBudget, USER_HELD_BYTES } from './held-bytes.js';
import { dropPortal, expandFormats, newPortal, portalFields, releaseWatch, type Portal } from './portal.js';
import type { ProtocolObjects } from './protocol-objects.js';
import type { CachedResult } from '../cache/result-cache.js';
import type { ResultStream, SessionOutput } from './result-stream.js';

export class PortalRunner {
  constructor(
    private readonly core: SessionCore,
    private readonly out: SessionOutput,
    private readonly named: ProtocolObjects,
    readonly stream: ResultStream,
  ) {}

  /** Run a portal and write one audit line: who, which version, how long, how many rows (errors: Session.fail). */
  runLogged(portal: Portal, maxRows: number, describe: boolean): Promise<void> | undefined {
    const started = process.hrtime.bigint();
    const rowsBefore = portal.rows;
    const logged = () =>
      this.core.audit.succeeded(
        portal.prepared,
        Number(process.hrtime.bigint() - started) / 1e6,
        portal.rows - rowsBefore,
        !!portal.replayed,
      );
    const running = this.run(portal, maxRows, describe);
    if (running) return running.then(logged);
    logged();
    return undefined;
  }

  /**
   * Run (or resume) a portal. `describe` is true for simple Query, where RowDescription precedes
   * the rows; in the extended protocol the client asked with Describe (or already knows). Answered
   * at once (undefined) from the result cache when nothing needs re-checking first.
   */
  run(portal: Portal, maxRows: number, describe: boolean): Promise<void> | undefined {
    const prepared = portal.prepared;
    if (prepared.stmt.kind !== 'query' || prepared.sql === '') return this.runOther(portal, describe);
    this.stream.held.assertResumable(portal); // never start an ended portal's query again
    const found = portal.cachedAnswer;
    portal.cachedAnswer = undefined;
    // found at Describe; an Execute with a row limit runs the portal instead (a replay sends every row)
    if (found && maxRows === 0) {
      this.stream.replay(portal, found, describe);
      return undefined;
    }
    if (portal.result || portal.done || maxRows !== 0) return this.runQuery(portal, maxRows, describe);
    const replayed = this.replayCached(portal, describe);
    if (replayed === true) return undefined;
    if (replayed === false) return this.runPlanned(portal, maxRows, describe);
    return replayed.then((hit) => (hit ? undefined : this.runPlanned(portal, maxRows, describe)));
  }

  /** A query the cache did not answer: one answered without planning (session/answered-texts.ts) is planned now. */
  private async runPlanned(portal: Portal, maxRows: number, describe: boolean): Promise<void> {
    if (!portal.prepared.answered) return this.runQuery(portal, maxRows, describe);
    portal.recording = undefined;
    portal.prepared = await this.prepareText(portal.prepared.sql, []);
    portal.ownsPrepared = true;
    return this.run(portal, maxRows, describe);
  }

  /** The version a finished run may be kept under in the result cache: undefined when a file it read changed meanwhile. */
  private keptVersion(portal: Portal): string | undefined {
    const { leases, reads } = portal.prepared;
    return this.core.version.readsUnchanged(leases, reads) ? this.core.lease()?.versionId : undefined;
  }

  /** Start (unless resumed) and stream a query's rows. */
  private async runQuery(portal: Portal, maxRows: number, describe: boolean): Promise<void> {
    if (!portal.result && !portal.done) {
      await this.startQuery(portal);
      if (describe && portal.prepared.fields) be.rowDescription(this.out.w, portalFields(portal));
    }
    if (!hasKeptRows(portal)) return this.stream.send(portal, maxRows, () => this.keptVersion(portal));
    if (await sendKeptRows(this.stream, portal, maxRows, this.out.w)) be.portalSuspended(this.out.w);
    else be.commandComplete(this.out.w, `SELECT ${portal.rows}`);
  }

  /** COPY … TO STDOUT, an empty query, or a statement the gateway answers itself. */
  private async runOther(portal: Portal, describe: boolean): Promise<void> {
    const stmt = portal.prepared.stmt;
    if (stmt.kind === 'copyOut') {
      const binary = stmt.options.format === 'binary' ? 1 : 0;
      portal.resultFormats = portal.prepared.columnTypes.map(() => binary);
      await this.startQuery(portal);
      await this.stream.copy(portal, stmt.options);
      return;
    }
    if (!isGatewayStatement(stmt)) {
      be.emptyQueryResponse(this.out.w); // the empty statement
      return;
    }
    if (usesConnection(stmt)) await this.endOpenStreams();
    const outcome = await runStatement(
      this.core,
      {
        statements: this.named.statements,
        portals: this.named.portals,
        limits: this.named.caps,
        running: portal,
        plan: portal.prepared,
        params: portal.params,
      },
      stmt,
    );
    await this.carryOut(outcome, portal, describe);
  }

  /** Encode a gateway statement's outcome (or run what it names). */
  private async carryOut(outcome: StatementOutcome<Portal>, portal: Portal, describe: boolean): Promise<void> {
    const w = this.out.w;
    switch (outcome.kind) {
      case 'done':
        if (outcome.dropStatements) this.named.dropStatements(outcome.dropStatements);
        if (outcome.dropPortals) this.named.dropPortals(outcome.dropPortals);
        if (outcome.keep) this.named.setStatement(outcome.keep.name, outcome.keep.prepared);
        be.commandComplete(this.out.w, outcome.tag);
        return;
      case 'rows':
        if (describe) be.rowDescription(w, portal.prepared.fields!);
        for (const row of outcome.rows) be.dataRowText(w, row as string[]);
        be.commandComplete(w, outcome.tag);
        return;
      case 'execute': {
        // A statement needing its values (session/value-plans.ts): planned with EXECUTE's written in.
        const target = outcome.target.valuesNeeded ? await this.withValues(outcome.target, outcome.params) : undefined;
        // Simple Query: text; extended: the EXECUTE portal's formats, as its Describe said (describe.ts).
        const formats = (n: number) =>
          describe ? new Array<0 | 1>(n).fill(0) : expandFormats(portal.resultFormats, n);
        const run = target
          ? newPortal(target, [], [], formats(target.columnTypes.length))
          : newPortal(outcome.target, outcome.params, [0], formats(outcome.target.columnTypes.length));
        try {
          await this.run(run, 0, describe);
        } finally {
          portal.rows = run.rows;
          dropPortal(run);
          if (target) disposeStatement(target);
        }
        return;
      }
      case 'declare': {
        const cursor = newPortal(
          outcome.query,
          portal.params,
          portal.paramFormats,
          outcome.query.columnTypes.map(() => (outcome.binary ? 1 : 0)),
        );
        cursor.cursor = newCursorState(outcome.hold, outcome.scroll, outcome.scopes);
        try {
          await this.startQuery(cursor);
        } catch (e) {
          disposeStatement(outcome.query);
          throw e;
        }
        this.named.portals.set(outcome.name, cursor);
        be.commandComplete(this.out.w, outcome.tag);
        return;
      }
      case 'fetch': {
        const cursor = outcome.cursor;
        if (!cursor.cursor) {
          if (cursor.prepared.stmt.kind !== 'query' || !cursor.prepared.fields?.length)
            throw new SqlError(SQLSTATE.invalidCursorName, `cursor "${outcome.name}" does not exist`);
          if (!cursor.result && !cursor.done) await this.startQuery(cursor);
          cursor.cursor = protocolPortalCursor(cursor);
          cursor.recording = undefined; // FETCH may send kept rows the recording never sees
        }
        // Simple Query: the cursor's own formats (BINARY); extended: the FETCH portal's, as PostgreSQL.
        const formats = describe
          ? cursor.resultFormats
          : expandFormats(portal.resultFormats, cursor.prepared.columnTypes.length);
        if (!outcome.move && describe) be.rowDescription(this.out.w, cursorFields(cursor, formats));
        const n = await fetchCursor(
          this.stream,
          cursor,
          outcome.name,
          outcome.direction,
          outcome.move,
          this.out.w,
          formats,
        );
        keepWithinUserBudget(this.named.portals, cursor);
        portal.rows = n;
        be.commandComplete(this.out.w, fetchTag(outcome.move, n));
        return;
      }
    }
  }

  /**
   * The result cache (session/result-cache-policy.ts): answer the portal from it (true), or start
   * recording its rows as they stream, or neither (false); a promise of that when the version must
   * be re-resolved or re-checked first.
   */
  private replayCached(portal: Portal, describe: boolean): boolean | Promise<boolean> {
    const { core } = this;
    const prepared = portal.prepared;
    if (!core.cachePolicy.applies(prepared, core.settings, portal.rows)) return false;
    core.tx.reads();
    const refreshing = core.tx.inBlock ? undefined : core.refreshVersion();
    if (refreshing) {
      return refreshing
        .then(() => core.version.revalidate(core.statementSeq, prepared.leases, prepared.reads))
        .then(() => this.answerFromCache(portal, describe));
    }
    const checking = core.version.revalidate(core.statementSeq, prepared.leases, prepared.reads);
    return checking
      ? checking.then(() => this.answerFromCache(portal, describe))
      : this.answerFromCache(portal, describe);
  }

  private answerFromCache(portal: Portal, describe: boolean): boolean {
    const hit = this.cachedAnswer(portal);
    if (!hit) return false;
    this.stream.replay(portal, hit, describe);
    return true;
  }

  private cachedAnswer(portal: Portal): CachedResult | undefined {
    const decision = this.core.cachePolicy.decide(portal.prepared, this.core.lease(), this.core.settings, portal);
    if (decision.kind === 'record') portal.recording = decision.recording;
    return decision.kind === 'hit' ? decision.result : undefined;
  }

  /**
   * Describe of a portal whose columns are typed only at run (wire/describe.ts): kept for its Execute
   * when the result cache answers it (described as planned), else started to know its columns.
   */
  async startDescribed(portal: Portal): Promise<void> {
    const prepared = portal.prepared;
    if (prepared.stmt.kind === 'query' && prepared.sql !== '' && !prepared.answered) {
      const { core } = this;
      if (core.cachePolicy.applies(prepared, core.settings, portal.rows)) {
        core.tx.reads();
        if (!core.tx.inBlock) await core.refreshVersion();
        await core.version.revalidate(core.statementSeq, prepared.leases, prepared.reads);
        portal.cachedAnswer = this.cachedAnswer(portal);
        if (portal.cachedAnswer) return;
      }
    }
    return this.startQuery(portal);
  }

  /** Start a portal's query: other open streams end, the version is re-checked, then DuckDB runs it. */
  async startQuery(portal: Portal): Promise<void> {
    await this.stream.settle();
    await this.core.preparer.waitIdle(); // a prepare given up on still holds the DuckDB connection
    await this.endStreamsBut(portal);
    if (!this.core.tx.inBlock) await this.core.refreshVersion();
    this.core.tx.reads();
    // Watched from before the re-check: what the re-check finds at the paths is what the watches are on, and a name
    // on the way to a file swapped after it is seen once the last row is read (versions/folder-watch.ts).
    const { leases, reads } = portal.prepared;
    releaseWatch(portal);
    portal.readChanged = undefined;
    portal.watch = this.core.version.watchReads(leases, reads) ?? undefined;
    try {
      await this.core.version.revalidate(this.core.statementSeq, leases, reads);
      const values = this.stream.decodeParams(portal);
      // A statement over remote versions: its own views (and files its values reach) until DuckDB started it.
      const started = await this.core.preparer.readyViews(portal.prepared, values);
      try {
        await this.stream.open(portal, values);
      } finally {
        started();
      }
    } catch (e) {
      releaseWatch(portal);
      throw e;
    }
  }

  /**
   * Before the gateway runs a statement of its own on DuckDB (SET mirrors there): a prefetch still
   * running finishes, open cursors read their rest, other streams end (their portals fail when resumed).
   */
  async endOpenStreams(): Promise<void> {
    await this.stream.settle();
    await this.endStreamsBut(null);
  }

  /** `prepared`'s text with these text-format values written in, planned (or the session's kept plan of it). */
  private async withValues(prepared: PreparedStmt, params: readonly (Buffer | null)[]): Promise<PreparedStmt> {
    const text = valuesText(
      prepared.sql,
      prepared.paramOids,
      params.map((p) => (p === null ? null : p.toString('utf8'))),
    );
    return withParseNames(await this.prepareText(text, []), prepared);
  }

  /**
   * A statement's text planned on the session's connection (or the session's kept plan of it; for a
   * simple Query's text, `answered`, the answer another session's run left: session/answered-texts.ts).
   */
  async prepareText(text: string, declaredTypes: number[], answered = false): Promise<PreparedStmt> {
    const { preparer } = this.core;
    const reused = await preparer.reuseCached(text, declaredTypes);
    if (reused) return reused;
    const stmt = preparer.classifyText(text);
    // freed first even when answered without a plan: other portals' streams end as before a new text
    if (plansOnDuckDB(stmt, text)) await this.freeConnection();
    const known = answered ? await preparer.answered(text, stmt) : null;
    if (known) return known;
    return preparer.prepareCached(text, stmt, declaredTypes);
  }

  /** Before planning on the DuckDB connection: a prepare given up on finishes too (under the statement's clock). */
  async freeConnection(): Promise<void> {
    await this.stream.settle();
    await this.core.preparer.waitIdle();
    await this.endStreamsBut(null);
  }

  /** Another statement runs on the connection: open cursors and suspended portals read their rest first (cursor-rows.ts, within one budget), then the streams end. */
  private async endStreamsBut(except: Portal | null): Promise<void> {
    // every portal's rows read ahead share one budget: many suspended portals cannot hold more, nor
    // a user's sessions together more than theirs (held-bytes.ts)
    let held = 0;
    for (const p of this.named.portals.values()) held += keptBytes(p);
    let userHeld: number | undefined; // counted across the user's sessions only when a portal is to be read ahead
    for (const p of this.named.portals.values()) {
      if (p === except || !p.result || p.done || p.interrupted || p.endedBy) continue;
      userHeld ??= heldByUser(this.named.portals);
      const before = keptBytes(p);
      await parkCursor(
        this.stream,
        p,
        Math.min(SESSION_KEPT_BYTES - (held - before), USER_HELD_BYTES - (userHeld - before)),
      );
      held += keptBytes(p) - before;
      userHeld += keptBytes(p) - before;
    }
    await this.stream.settle(); // a chunk fetched ahead for a cursor that stopped at the cap
    this.stream.held.interruptOpenPortals(except);
  }
}
