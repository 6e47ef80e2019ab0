/**
 * A logged-in user's session opened, and announced: its startup parameters applied as SET would be
 * (without ParameterStatus), its version resolved and attached (errors here end the connection:
 * 3D000 …); once registered, its identity given to the catalog emulation and the client told the
 * reported parameters, its key data and ReadyForQuery; its finished statements logged.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import * as be from './backend.js';
import type { ConnectionContext, ConnectionLog } from './connection-context.js';
import { Session, type SessionOutput } from './session.js';
import type { AuditSink } from '../session/audit.js';
import { canonicalDatabase, startupSettings } from '../session/startup.js';
import { INITIAL_REPORTED, reportedName } from '../session/parameters.js';
import type { Writer } from './writer.js';
import { memoryTurnsOf } from '../engine/memory-turns.js';
import { instanceOfSession } from '../engine/session-connections.js';

export interface SessionTarget {
  readonly repo: string;
  readonly ref: string;
  readonly user: string;
  readonly clientAddress: string | null;
  readonly clientPort?: number | null;
  /** Where the client connected to, for inet_server_addr()/inet_server_port(). */
  readonly server?: { address: string | null; port: number | null };
}

/** A session on `conn`, opened; closed again (and the error thrown) when opening fails. */
export async function openSession(
  ctx: ConnectionContext,
  conn: DuckDBConnection,
  target: SessionTarget,
  params: Map<string, string>,
  out: SessionOutput,
  audit: AuditSink,
): Promise<Session> {
  const session = new Session(
    conn,
    ctx.versions,
    target.repo,
    target.ref,
    target.user,
    out,
    ctx.limits,
    ctx.results,
    audit,
  );
  session.clientAddress = target.clientAddress;
  session.endpoints = { clientPort: target.clientPort ?? null, server: target.server ?? { address: null, port: null } };
  if (ctx.serverRoots) session.serverRoots = ctx.serverRoots;
  try {
    for (const [k, v] of startupSettings(params)) await session.applyStartupSetting(k, v);
    await session.open();
  } catch (e) {
    await session.close();
    throw e;
  }
  return session;
}

/** Runs one of a session's start-up calls in its instance's memory turns. */
export type InTurn = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * A session opened on a connection `connect` takes from the repository's instance, in the instance's
 * memory turns (engine/memory-turns.ts): a start-up that fails because another user fills the pool is
 * closed (its connection given back) and opened again alone, bounded, on a connection taken anew.
 * Returns the session and how its later start-up calls take their turn (on its connection).
 */
export async function openSessionInTurn(
  ctx: ConnectionContext,
  connect: () => Promise<DuckDBConnection>,
  target: SessionTarget,
  params: Map<string, string>,
  out: SessionOutput,
  audit: AuditSink,
): Promise<{ session: Session; inTurn: InTurn }> {
  let conn: DuckDBConnection | undefined = await connect();
  const turns = memoryTurnsOf(instanceOfSession(conn) ?? conn);
  let opened!: DuckDBConnection;
  const session = await turns.retriedOn(
    async () => (conn ??= await connect()),
    (on) => {
      conn = undefined; // a failed opening gave it back (Session.close): the next attempt takes another
      opened = on;
      return openSession(ctx, on, target, params, out, audit);
    },
  );
  return { session, inTurn: (work) => turns.retriedCall(opened, work) };
}

/** The registered session's identity for the catalog, then ParameterStatus, BackendKeyData, ReadyForQuery. */
export async function announceSession(
  session: Session,
  w: Writer,
  database: string,
  key: { pid: number; secret: number },
  inTurn?: InTurn,
): Promise<void> {
  const describe = () => session.describeSession(canonicalDatabase(database), key.pid);
  await (inTurn ? inTurn(describe) : describe());
  for (const name of INITIAL_REPORTED) {
    const v = session.settings.get(name);
    if (v === undefined) continue;
    be.parameterStatus(w, reportedName(name)!, v);
    session.toldAtStartup(reportedName(name)!, v);
  }
  be.backendKeyData(w, key.pid, key.secret);
  be.readyForQuery(w, 'I');
}

/**
 * Where a session's finished statements go: the observer (metrics), then the log, a line each with the
 * session's pid and a request id `<session's id>.<n>` that counts every statement, logged or not.
 */
export function statementLog(
  ctx: ConnectionContext,
  log: ConnectionLog,
  requestId: string,
  pid: () => number,
): AuditSink {
  let statements = 0;
  return (entry) => {
    ctx.observeStatement?.(entry);
    // the entry is ours (session/audit.ts): completed in place, not copied
    const request = `${requestId}.${++statements}`;
    if (log.isLevelEnabled?.('info') === false) return;
    entry.pid = pid();
    entry.request = request;
    log.info(entry);
  };
}
