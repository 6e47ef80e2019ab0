/**
 * The statements the gateway answers itself (transaction control, SET/SHOW/RESET, DISCARD, PREPARE/
 * EXECUTE/DEALLOCATE, DECLARE/FETCH/MOVE/CLOSE, LISTEN), interpreted against the session's state and
 * returned as an outcome value for the wire to carry out: a tag to send, rows to send, a plan to run
 * or a cursor to open. Nothing here writes protocol messages or calls into the wire.
 */
import { interpretLock } from './lock.js';
import { importSnapshot } from './snapshot-import.js';
import { SqlError, SQLSTATE } from '../errors.js';
import type { Statement } from '../text/classify.js';
import type { SessionCore } from './core.js';
import {
  closingAtRollbackTo,
  closingAtTransactionEnd,
  interpretCursor,
  type CursorAction,
  type CursorEntry,
} from './cursors.js';
import { roomForPortal, roomForStatement, type NamedLimits } from './named-limits.js';
import { disposeStatement, type PreparedStmt } from './plan.js';
import {
  declaredTypeOids,
  evaluateArguments,
  interpretDeallocate,
  interpretDiscardAll,
  interpretExecute,
  interpretPrepare,
} from './prepared-sql.js';
import { boundSetConfig } from '../pg/set-config.js';
import type { SettingOutcome } from './set-show.js';
import type { TransactionOutcome } from './transaction.js';

/** A statement the gateway answers itself (queries and COPY go to DuckDB). */
export type GatewayStatement = Exclude<Statement, { kind: 'query' | 'copyOut' | 'refused' }>;

export type StatementOutcome<P> =
  /** CommandComplete with `tag`, once these named objects are dropped and `keep` is kept. */
  | {
      kind: 'done';
      tag: string;
      dropStatements?: readonly string[];
      dropPortals?: readonly string[];
      keep?: { name: string; prepared: PreparedStmt };
    }
  /** SHOW: these rows under the plan's fields (text), then CommandComplete SHOW. */
  | { kind: 'rows'; rows: readonly (readonly string[])[]; tag: 'SHOW' | 'SELECT 1' }
  /** EXECUTE: run `target` with these text parameters as its own portal. */
  | { kind: 'execute'; target: PreparedStmt; params: (Buffer | null)[] }
  /** DECLARE: open cursor `name` over `query` (one reference, the cursor's own), with the DECLARE's parameters. */
  | {
      kind: 'declare';
      name: string;
      query: PreparedStmt;
      hold: boolean;
      scroll: boolean;
      binary: boolean;
      scopes: readonly number[];
      tag: 'DECLARE CURSOR';
    }
  /** FETCH / MOVE: send or pass over the rows `direction` reaches (tag: fetchTag). */
  | Extract<CursorAction<P>, { kind: 'fetch' }>;

/** What the interpreter reads of the session's protocol objects. */
export interface StatementScope<P extends CursorEntry> {
  readonly statements: ReadonlyMap<string, PreparedStmt>;
  readonly portals: ReadonlyMap<string, P>;
  readonly limits: NamedLimits;
  /** The portal running this statement (CLOSE ALL leaves it alone), and its plan. */
  readonly running: P;
  readonly plan: PreparedStmt;
  /** The portal's bound parameters (set_config's `$n`; text and binary text alike are UTF-8). */
  readonly params?: readonly (Buffer | null)[];
}

export function isGatewayStatement(stmt: Statement): stmt is GatewayStatement {
  return stmt.kind !== 'query' && stmt.kind !== 'copyOut' && stmt.kind !== 'refused';
}

/**
 * Whether the statement runs something of its own on the DuckDB connection (SET mirrors there,
 * PREPARE's declared types and EXECUTE's arguments are prepared there): the wire ends the open
 * result streams first (DuckDB keeps one per connection).
 */
export function usesConnection(stmt: GatewayStatement): boolean {
  switch (stmt.kind) {
    case 'set':
    case 'setConfig':
    case 'reset':
    case 'resetAll':
    case 'discardAll':
    case 'prepareSql':
      return true;
    case 'executeSql':
      return stmt.args.length > 0;
    default:
      return false;
  }
}

export async function runStatement<P extends CursorEntry>(
  core: SessionCore,
  scope: StatementScope<P>,
  stmt: GatewayStatement,
): Promise<StatementOutcome<P>> {
  switch (stmt.kind) {
    case 'begin':
      return transactionDone(
        core,
        scope,
        core.tx.begin(stmt.isolation ?? defaultIsolation(core), stmt.start ? 'START TRANSACTION' : 'BEGIN'),
      );
    case 'commit':
    case 'rollback': {
      const verb = stmt.kind.toUpperCase();
      if (stmt.chain && !core.tx.inBlock)
        throw new SqlError(SQLSTATE.noActiveTransaction, `${verb} AND CHAIN can only be used in transaction blocks`);
      const isolation = core.tx.isolation;
      const done = await transactionDone(core, scope, stmt.kind === 'commit' ? core.tx.commit() : core.tx.rollback());
      // AND CHAIN: the next block begins at once, with the ended one's isolation level.
      if (stmt.chain) await transactionDone(core, scope, core.tx.begin(isolation));
      return done;
    }
    case 'savepoint':
      return transactionDone(core, scope, core.tx.savepoint(stmt.name));
    case 'release':
      return transactionDone(core, scope, core.tx.release(stmt.name));
    case 'rollbackTo':
      return transactionDone(core, scope, core.tx.rollbackTo(stmt.name));
    case 'set':
      settled(core, await core.setShow.set(stmt.name, stmt.value, core.tx.inBlock, stmt.local));
      return { kind: 'done', tag: 'SET' };
    case 'setTransaction':
      // The session's characteristics are its defaults (pgjdbc's setTransactionIsolation sends this).
      if (stmt.session) {
        if (stmt.isolation)
          settled(
            core,
            await core.setShow.set('default_transaction_isolation', stmt.isolation, core.tx.inBlock, false),
          );
        return { kind: 'done', tag: 'SET' };
      }
      if (!core.tx.inBlock)
        core.outbox.notice(
          'SET TRANSACTION can only be used in transaction blocks',
          'WARNING',
          SQLSTATE.noActiveTransaction,
        );
      if (stmt.snapshot !== undefined) await importSnapshot(core, stmt.snapshot);
      else if (stmt.isolation) core.tx.setIsolation(stmt.isolation);
      return { kind: 'done', tag: 'SET' };
    case 'reset':
      settled(core, await core.setShow.set(stmt.name, null, core.tx.inBlock));
      return { kind: 'done', tag: 'RESET' };
    case 'resetAll':
      settled(core, await core.setShow.resetAll(core.tx.inBlock));
      return { kind: 'done', tag: 'RESET' };
    case 'show':
      if (stmt.name === 'transaction_isolation')
        return { kind: 'rows', rows: [[core.tx.inBlock ? core.tx.isolation : defaultIsolation(core)]], tag: 'SHOW' };
      return { kind: 'rows', rows: [[core.setShow.show(stmt.name)]], tag: 'SHOW' };
    case 'showAll':
      return { kind: 'rows', rows: core.setShow.showAll(), tag: 'SHOW' };
    case 'setConfig': {
      const params = (scope.params ?? []).map((p) => (p === null ? null : p.toString('utf8')));
      const values: string[] = [];
      for (const item of stmt.calls) {
        if (item.kind === 'read') {
          values.push(core.setShow.show(item.name));
          continue;
        }
        const outcome = await core.setShow.setConfig(boundSetConfig(item, params), core.tx.inBlock);
        settled(core, outcome);
        values.push(outcome.value);
      }
      return { kind: 'rows', rows: [values], tag: 'SELECT 1' };
    }
    case 'discardAll': {
      const dropStatements = interpretDiscardAll(scope.statements, core.tx.inBlock, scope.plan);
      core.preparer.cache.clear();
      settled(core, await core.setShow.resetAll());
      return { kind: 'done', tag: 'DISCARD ALL', dropStatements };
    }
    case 'discard':
      return { kind: 'done', tag: `DISCARD ${stmt.what === 'TEMPORARY' ? 'TEMP' : stmt.what}` };
    case 'deallocate': {
      const { names, tag } = interpretDeallocate(stmt, scope.statements, scope.plan);
      return { kind: 'done', tag, dropStatements: names };
    }
    case 'prepareSql': {
      const { name, query, stmt: inner, types } = interpretPrepare(stmt, scope.statements);
      roomForStatement(scope.statements, name, scope.limits, query);
      // Admitted like any statement: the one pipeline (analysis, admission, DuckDB prepare).
      // A statement needing its values (value-plans.ts) is planned again at EXECUTE with them written in.
      const prepared = await core.preparer.prepareCached(query, inner, await declaredTypeOids(core.conn, types));
      return { kind: 'done', tag: 'PREPARE', keep: { name, prepared } };
    }
    case 'executeSql': {
      const target = interpretExecute(stmt, scope.statements);
      const params = await evaluateArguments(stmt.args, (text) =>
        core.preparer.prepare(text, { kind: 'query', sql: text }, []),
      );
      return { kind: 'execute', target, params };
    }
    case 'declare':
    case 'fetch':
    case 'closeCursor': {
      const action = interpretCursor(stmt, scope.portals, core.tx.inBlock, scope.running);
      if (action.kind === 'close') return { kind: 'done', tag: action.tag, dropPortals: action.names };
      if (action.kind === 'fetch') return action;
      roomForPortal(scope.portals, action.name, scope.limits);
      // The query was planned with the DECLARE (and takes its parameters); the cursor holds its own reference.
      const query = scope.plan.cursorQuery;
      if (!query) throw new SqlError(SQLSTATE.internalError, 'DECLARE without its planned query');
      query.refs++;
      return {
        kind: 'declare',
        name: action.name,
        query,
        hold: action.hold,
        scroll: action.scroll,
        binary: action.binary,
        // the transaction scopes open now: rolling back any of them drops the cursor (cursors.ts)
        scopes: core.tx.scopes,
        tag: action.tag,
      };
    }
    case 'lock':
      // Each relation read once through the one pipeline: it must exist and be granted (lock.ts).
      for (const read of interpretLock(stmt, core.tx.inBlock))
        disposeStatement(await core.preparer.prepare(read, { kind: 'query', sql: read }, []));
      return { kind: 'done', tag: 'LOCK TABLE' };
    case 'unlisten':
      return { kind: 'done', tag: 'UNLISTEN' };
    case 'listen':
      throw new SqlError(SQLSTATE.featureNotSupported, 'LISTEN/NOTIFY is not supported by fdl-gateway');
  }
}

async function transactionDone<P extends CursorEntry>(
  core: SessionCore,
  scope: StatementScope<P>,
  outcome: TransactionOutcome,
): Promise<StatementOutcome<P>> {
  if (outcome.warning) core.outbox.notice(outcome.warning.message, 'WARNING', outcome.warning.code);
  if (outcome.ended) {
    settled(core, await core.setShow.endBlock(outcome.tag === 'COMMIT'));
    await core.closeClock();
  }
  if (outcome.savepoints) settled(core, await core.setShow.savepointMoved(outcome.savepoints));
  if (outcome.begins) {
    await core.refreshVersion(); // a moving ref is re-resolved as the block starts
    core.tx.begun();
    await core.openClock();
  }
  return {
    kind: 'done',
    tag: outcome.tag,
    ...(outcome.ended
      ? { dropPortals: closingAtTransactionEnd(scope.portals, outcome.aborted) }
      : outcome.aborted !== undefined
        ? { dropPortals: closingAtRollbackTo(scope.portals, outcome.aborted) }
        : {}),
  };
}

/** The isolation level of a transaction that names none. */
function defaultIsolation(core: SessionCore): string {
  return core.settings.get('default_transaction_isolation') ?? 'read committed';
}

/** Carry out what a SET / RESET asks of the session. */
function settled(core: SessionCore, outcome: SettingOutcome): void {
  if (outcome.warning) core.outbox.notice(outcome.warning, 'WARNING', outcome.warningCode ?? SQLSTATE.warning);
  if (outcome.forgetStatements) core.preparer.cache.clear();
}
