/**
 * The protocol's portal: a prepared statement bound to parameter values and result formats, and the
 * DuckDB result it streams from (chunks fetched ahead, position, rows and bytes sent). SQL cursors
 * (DECLARE) are portals too, as in PostgreSQL.
 */
import type { DuckDBDataChunk, DuckDBResult } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import type { FieldDescription } from './backend.js';
import { pgFieldFor, type RowEncoder } from './types/index.js';
import { disposeStatement, type PreparedStmt } from '../session/plan.js';
import type { Recording } from '../session/result-cache-policy.js';
import type { CachedResult } from '../cache/result-cache.js';
import type { CursorState } from './cursor-rows.js';
import type { WatchedRun } from '../versions/folder-watch.js';

/** One chunk fetched (or the error fetching it), settled rather than rejected. */
export interface Fetched {
  chunk: DuckDBDataChunk | null;
  error: unknown;
}

export interface Portal {
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
  /** The result was run materialized (at most one chunk's rows): all its chunks are in `ahead`. */
  whole?: boolean;
  /** DataRow bytes produced (for the byte cap). */
  bytes: number;
  done: boolean;
  /** It holds a reference to `prepared`: a plan made with its bound values (session/value-plans.ts). */
  ownsPrepared?: boolean;
  /** SQL-level cursor (DECLARE): owns its prepared statement; WITH HOLD survives COMMIT; SCROLL keeps rows. */
  cursor?: CursorState;
  /** Another statement ran on the connection while this portal's DuckDB stream was open. */
  interrupted?: boolean;
  /**
   * Why the statement clock interrupted DuckDB while this portal's stream was open (timeout, cancel,
   * temp ceiling): an interrupted stream reads as empty, so the portal must fail, never look finished.
   */
  stoppedBy?: SqlError;
  /** The statement clock's interruption count when the stream opened (StatementClock.stopSince). */
  stopsAtOpen?: number;
  /**
   * Why this suspended result was ended while its session was idle (the temp directory's ceiling,
   * 53100, or the memory watchdog, 53200): its next Execute/FETCH fails with it, never a short result.
   */
  endedBy?: SqlError;
  /** The folders on the way to the files its run reads, watched from before their re-check until its last row is read. */
  watch?: WatchedRun;
  /** A name on the way to a file it read changed while DuckDB read it: its rows may be forged (readChangedError). */
  readChanged?: boolean;
  /** Rows being recorded for the result cache (session/result-cache-policy.ts). */
  recording?: Recording;
  /** Answered from the result cache. */
  replayed?: boolean;
  /** The result cache's answer found at Describe, replayed by the Execute that follows. */
  cachedAnswer?: CachedResult;
}

export function newPortal(
  prepared: PreparedStmt,
  params: (Buffer | null)[],
  paramFormats: number[],
  resultFormats: (0 | 1)[],
): Portal {
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

/** Let go of the portal's result (and, for a cursor, its own prepared statement). */
export function dropPortal(p: Portal): void {
  releaseWatch(p);
  if (p.cursor?.declared || p.ownsPrepared) disposeStatement(p.prepared);
  p.ahead = [];
  p.result = null;
  p.chunk = null;
  p.done = true;
}

/** Bind's result format codes for `n` columns: none = all text, one = all alike, else one each. */
export function expandFormats(codes: number[], n: number): (0 | 1)[] {
  if (codes.length === 0) return new Array<0 | 1>(n).fill(0);
  if (codes.length === 1) return new Array<0 | 1>(n).fill(codes[0] as 0 | 1);
  return codes as (0 | 1)[];
}

/**
 * Whether the running result has the types the plan described, the columns typed only at run among
 * them: only then may its rows be replayed under the planned RowDescription (the result cache).
 */
export function describedAsPlanned(portal: Portal): boolean {
  const planned = portal.prepared.fields ?? [];
  const run = portalFields(portal);
  return planned.every((f, i) => f.typeOid === run[i]!.typeOid && f.typeMod === run[i]!.typeMod);
}

/** RowDescription of a portal: the prepared description, completed from the running result. */
export function portalFields(portal: Portal): FieldDescription[] {
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

/** Let go of the portal's folder watches (its run ended before its last row was read, or it is dropped). */
export function releaseWatch(p: Portal): void {
  p.watch?.release();
  p.watch = undefined;
}

/** Whether a name on the way to the portal's files changed so far (its run suspended, its watch kept). */
export async function checkReadSoFar(p: Portal): Promise<void> {
  if (p.watch && (await p.watch.changedYet())) p.readChanged = true;
}

/**
 * A run whose files' folders changed while DuckDB read them (versions/folder-watch.ts): a data file's folder renamed
 * away, another put in its place, and the genuine one renamed back leaves each file's own identity the verified one.
 * Rows already sent cannot be recalled, but the run never completes (nor is kept by the result cache).
 */
export function assertReadUnchanged(p: Portal): void {
  if (!p.readChanged) return;
  p.recording = undefined;
  throw new SqlError(
    SQLSTATE.dataCorrupted,
    'a data file of the version, or a folder on the way to it, was renamed or replaced while the statement read it',
    undefined,
    'The rows sent may not be the verified ones; run the statement again.',
  );
}
