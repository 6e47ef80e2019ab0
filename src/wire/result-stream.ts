/**
 * Streaming a portal's result to the client: DataRows chunk by chunk with DuckDB producing ahead,
 * Execute's row limit (PortalSuspended), COPY … TO STDOUT, the row and byte caps on every path, and
 * the result cache's recording and replay. Flushes with backpressure, so memory stays bounded by a
 * few chunks whatever the result's size; chunks are fetched ahead only while they are small
 * (PREFETCH_BYTES), a chunk's native memory is given back as soon as it is sent (not when V8 collects
 * its wrapper), and a send the client does not take ends with the statement's clock (statement_timeout
 * 57014, cancel, the memory watchdog), as PostgreSQL's statement_timeout would end it.
 */
import type { DuckDBDataChunk, DuckDBMaterializedResult, DuckDBType } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import type { HeldResults } from './held-results.js';
import * as be from './backend.js';
import { CopyFramer } from './copy.js';
import type { CopyOptions } from '../text/copy-options.js';
import {
  assertReadUnchanged,
  checkReadSoFar,
  describedAsPlanned,
  portalFields,
  releaseWatch,
  type Fetched,
  type Portal,
} from './portal.js';
import { decodeParam, makeRowEncoder, type DecodedParam, type RowEncoder } from './types/index.js';
import { Writer } from './writer.js';
import { LoopTurn } from './loop-turn.js';
import { redactServerPaths } from '../engine/duckdb-errors.js';
import { renderPlan, type ExplainHead } from '../text/explain.js';
import type { CachedResult } from '../cache/result-cache.js';
import type { ResultCachePolicy } from '../session/result-cache-policy.js';
import type { SessionSettings } from '../session/settings.js';
import { DISCONNECTED, type StatementClock } from '../session/statement-clock.js';
import { counted, spent, stageClock } from '../stages.js';
import { releaseNativeMemory } from '../session/native-memory.js';
import { preparedDuck, releaseOperatorState } from '../session/plan.js';

export interface SessionOutput {
  readonly w: Writer;
  /** Send what is buffered; a promise, resolved when the socket can take more, only when it must wait (backpressure). */
  flush(): Promise<void> | undefined;
  /** True once the client is gone: stop producing rows. */
  readonly closed: boolean;
  /** Bytes written but not yet taken by the client (the socket's queue). */
  readonly backlog?: number;
}

/** The gateway's result caps (0 = none). */
export interface ResultLimits {
  readonly maxResultRows: number;
  readonly maxResultBytes: number;
}

const FLUSH_BYTES = 256 * 1024;
/** Chunks (of 2,048 rows) fetched ahead of the one being sent, at most… */
const PREFETCH_CHUNKS = 4;
/**
 * …and only while they hold at most this much together: a chunk of 140 KB rows is 287 MB, and four
 * of them fetched ahead for a client that does not read were 1.1 GB held by the gateway.
 */
const PREFETCH_BYTES = 16 * 1024 * 1024;
/**
 * Chunks DuckDB holds for a stream besides those fetched: the one in its buffer and the one a worker
 * computes (engine/memory-ceiling.ts STREAMING_BUFFER_SIZE). For the watchdog's accounting.
 */
const ENGINE_CHUNKS = 2;
const END_OF_RESULT: Fetched = { chunk: null, error: null };

/**
 * A query's start in its session: `own.free` lets go of what a failed run keeps in the statement,
 * `own.again` makes it ready to run again (prepared and bound anew).
 */
export type StartCall = <T>(work: () => Promise<T>, own: { free(): void; again(): Promise<void> }) => Promise<T>;

export class ResultStream {
  /** A chunk prefetch that may still be running on the DuckDB connection. */
  private inflight: Promise<unknown> | null = null;
  /** The portal whose rows are being sent now, and the bytes one of its chunks encodes to (estimated). */
  private sending: Portal | null = null;
  private readonly chunkBytes = new WeakMap<Portal, number>();
  /** Rows are encoded within a budget of each turn of the event loop (loop-turn.ts). */
  private readonly turn = new LoopTurn();

  constructor(
    private readonly out: SessionOutput,
    private readonly clock: StatementClock,
    private readonly limits: ResultLimits,
    private readonly settings: SessionSettings,
    private readonly cachePolicy: ResultCachePolicy,
    /** The portals holding an open DuckDB stream, and whether each may go on (wire/held-results.ts). */
    readonly held: HeldResults,
    /** A DuckDB call run in a slot of the session's user (engine/engine-calls.ts). */
    private readonly call: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
    /** A query's start: as `call`, tried again alone on its instance when it fails for memory (engine/memory-turns.ts). */
    private readonly start: StartCall = (work) => call(work),
  ) {}

  /** Wait for a prefetch still running on the connection (DuckDB runs one call per connection). */
  async settle(): Promise<void> {
    const p = this.inflight;
    if (p) {
      await p;
      if (this.inflight === p) this.inflight = null;
    }
  }

  /** The portal's parameter values decoded (remote files are chosen by them before the run). */
  decodeParams(portal: Portal): DecodedParam[] {
    const prepared = portal.prepared;
    // a text running its shape's plan binds its own constants (session/constant-sharing.ts)
    const constants = prepared.constants;
    if (constants)
      return constants.texts.map((text, i) =>
        decodeParam(constants.oids[i] ?? 0, 0, Buffer.from(text, 'utf8'), { timeZone: this.settings.get('timezone') }),
      );
    return portal.params.map((raw, i) => {
      const format = (portal.paramFormats.length === 1 ? portal.paramFormats[0] : (portal.paramFormats[i] ?? 0)) as
        0 | 1;
      return decodeParam(prepared.paramOids[i] ?? 0, format, raw ?? null, { timeZone: this.settings.get('timezone') });
    });
  }

  /**
   * Bind the portal's parameter `values`, start DuckDB's stream and the row encoder (under the
   * statement's clock, armed and disarmed by its owner in wire/session.ts).
   */
  async open(portal: Portal, values: readonly DecodedParam[]): Promise<void> {
    // Prepared again when its last run's memory was given back under pressure (engine/memory-turns.ts);
    // not given back while this portal starts or reads it (a shared plan's: the planned one's).
    const prepared = portal.prepared;
    const owner = prepared.sharedFrom ?? prepared;
    owner.runBy = portal;
    owner.starting = true;
    const ready = async () => {
      const duck = await preparedDuck(prepared);
      duck.clearBindings();
      values.forEach(({ value, type }, i) =>
        value === null ? duck.bindNull(i + 1) : duck.bindValue(i + 1, value, type),
      );
      return duck;
    };
    let starting = stageClock();
    const whole = (prepared.rowBound ?? Infinity) <= WHOLE_ROWS;
    // The first chunk is fetched in the start: where a query's builds (hash tables, aggregates) run,
    // so a start that fails for memory is tried again whole (engine/memory-turns.ts).
    let result, first;
    try {
      await ready();
      portal.stopsAtOpen = this.clock.stopCount;
      starting = stageClock();
      [result, first] = await this.start(
        async () => {
          // A result of one chunk at most is run in one call, materialized (as much as one streamed chunk holds)
          counted('result_call');
          if (whole) return [await prepared.duck!.run(), null] as const;
          const r = await prepared.duck!.stream();
          const stopped = this.clock.stopRequested || this.clock.isAborted;
          if (!stopped) counted('result_call');
          return [r, stopped ? null : await r.fetchChunk()] as const;
        },
        { free: () => releaseOperatorState(prepared, true), again: async () => void (await ready()) },
      );
    } finally {
      owner.starting = false;
    }
    portal.result = result;
    portal.whole = whole;
    portal.ahead = whole
      ? [...wholeChunks(result as DuckDBMaterializedResult), END_OF_RESULT].map((f) => Promise.resolve(f))
      : [Promise.resolve({ chunk: first, error: null })];
    spent('execution', starting);
    // A cancel or disconnect that arrived while DuckDB was starting the query may have found no
    // active query to interrupt: honour it now, before the first fetch runs the query.
    if (this.clock.stopRequested || this.clock.isAborted) {
      portal.result = null;
      portal.ahead = [];
      throw this.clock.interruption();
    }
    // Encode with the result's real types: columns DuckDB could only type now are described from
    // the running result too (portalFields), so description and data agree.
    portal.encoder = this.encoderFor(portal, portal.result.columnTypes());
    // A replay is described as planned: rows of a run typed otherwise (by its values) are not kept.
    if (portal.recording && !describedAsPlanned(portal)) portal.recording = undefined;
  }

  /** A cursor's next rows go out in `formats` (a FETCH's own result formats, as PostgreSQL). */
  useFormats(portal: Portal, formats: (0 | 1)[]): void {
    if (formats.length === portal.resultFormats.length && formats.every((f, i) => f === portal.resultFormats[i]))
      return;
    portal.resultFormats = formats;
    if (portal.result) portal.encoder = this.encoderFor(portal, portal.result.columnTypes());
  }

  private encoderFor(portal: Portal, types: DuckDBType[]): RowEncoder {
    const prepared = portal.prepared;
    const requested = portal.resultFormats.length ? portal.resultFormats : types.map(() => 0 as const);
    return makeRowEncoder(
      types,
      types.map((_, i) => requested[i] ?? 0),
      {
        timeZone: this.settings.get('timezone') ?? 'UTC',
        extraFloatDigits: Number(this.settings.get('extra_float_digits') ?? '1'),
        // A plan names the files it reads by their server paths: a client sees `…/` and the name.
        ...(prepared.analysis?.explain ? { textFilter: explainText(prepared.analysis.explain.format) } : {}),
      },
      prepared.columnOids,
    );
  }

  /**
   * Send rows up to Execute's limit: PortalSuspended, or CommandComplete at the end (kept in the cache if recorded
   * and `versionNow`, asked then, is still the version it was keyed by, its files as verified).
   */
  async send(portal: Portal, maxRows: number, versionNow: () => string | undefined): Promise<void> {
    const suspended = await this.pump(portal, maxRows, this.out.w);
    if (suspended) {
      // a client may never read a suspended run to its end: its rows so far are checked before they count as sent
      await checkReadSoFar(portal);
      assertReadUnchanged(portal);
      be.portalSuspended(this.out.w);
    } else {
      const rec = portal.recording;
      portal.recording = undefined;
      if (rec) this.cachePolicy.keep(rec, versionNow(), portal.rows);
      be.commandComplete(this.out.w, `SELECT ${portal.rows}`);
    }
  }

  /** Answer a portal with the DataRows the result cache recorded. */
  replay(portal: Portal, hit: CachedResult, describe: boolean): void {
    if (describe && portal.prepared.fields) be.rowDescription(this.out.w, portalFields(portal));
    portal.rows = hit.rowCount;
    portal.bytes = hit.rows.length;
    this.checkResultLimits(portal);
    this.out.w.bytes(hit.rows);
    portal.done = true;
    portal.replayed = true;
    be.commandComplete(this.out.w, `SELECT ${hit.rowCount}`);
  }

  /**
   * Send up to `maxRows` rows (0 = all) of a portal as DataRows into `w` (a scratch writer for
   * MOVE). Returns true when the limit was reached before the end of the result.
   */
  async pump(portal: Portal, maxRows: number, w: Writer): Promise<boolean> {
    const toClient = w === this.out.w;
    this.held.assertResumable(portal);
    portal.batchRows = 0;
    if (toClient) this.sending = portal;
    try {
      return await this.pumpRows(portal, maxRows, w, toClient);
    } catch (e) {
      // The statement ends here: what it fetched is given back now, not at the next collection.
      releaseChunks(portal);
      throw e;
    } finally {
      if (this.sending === portal) this.sending = null;
    }
  }

  private async pumpRows(portal: Portal, maxRows: number, w: Writer, toClient: boolean): Promise<boolean> {
    for (;;) {
      let fresh = false;
      if (!portal.chunk || portal.chunkPos >= portal.chunk.rowCount) {
        portal.chunk?.reset(); // sent: its strings are freed now (DuckDB's DataChunk::Reset)
        portal.chunk = await this.nextChunk(portal);
        portal.chunkPos = 0;
        if (!portal.chunk || portal.chunk.rowCount === 0) {
          this.assertNotStopped(portal);
          portal.done = true;
          portal.result = null;
          portal.chunk = null;
          await lastRowRead(portal);
          // rows read ahead into a cursor fail when they are fetched (cursor-rows.ts fetchCursor)
          if (toClient) assertReadUnchanged(portal);
          return false;
        }
        fresh = true;
      }
      if (this.clock.stopRequested) throw this.clock.interruption();
      const available = portal.chunk.rowCount - portal.chunkPos;
      let take = maxRows > 0 ? Math.min(available, maxRows - portal.batchRows) : available;
      // Never send a row past the row cap (across every Execute of the portal): one more is the refusal.
      const cap = this.limits.maxResultRows;
      if (toClient && cap > 0 && portal.rows + take > cap) take = Math.min(take, cap - portal.rows + 1);
      const before = w.length;
      const encoding = stageClock();
      const written = portal.encoder!(portal.chunk, w, portal.chunkPos, portal.chunkPos + take, this.turn.until());
      spent('encoding', encoding);
      portal.chunkPos += written;
      portal.rows += written;
      portal.batchRows += written;
      // DuckDB produces the next chunks on its threads while this one is encoded and sent, as many
      // as fit PREFETCH_BYTES by what this chunk's first rows weigh.
      if (fresh) this.prefetch(portal, ((w.length - before) / Math.max(written, 1)) * portal.chunk.rowCount);
      if (toClient) {
        portal.bytes += w.length - before;
        this.checkResultLimits(portal, w, before);
        // A result that outgrew the cache's entry limit is not recorded further (nor kept).
        if (portal.recording && !portal.recording.recorder.add(w.raw.subarray(before, w.length)))
          portal.recording = undefined;
        if (w.length >= FLUSH_BYTES) await this.deliver();
        if (this.out.closed) throw DISCONNECTED;
      } else w.flush();
      if (maxRows > 0 && portal.batchRows >= maxRows) return true;
      await this.turn.yieldIfSpent();
    }
  }

  /**
   * DuckDB reads an interrupted stream as empty: at what looks like the end of rows, an interruption
   * (now, or of an earlier statement while this stream was open) is the error it is, never the end.
   */
  private assertNotStopped(portal: Portal): void {
    if (this.clock.stopRequested || this.clock.isAborted) throw this.clock.interruption();
    this.held.assertResumable(portal);
  }

  /** COPY … TO STDOUT: CopyOutResponse, one CopyData per row, CopyDone, `COPY n`. */
  async copy(portal: Portal, f: CopyOptions): Promise<void> {
    const w = this.out.w;
    // Rows are encoded a batch at a time (a chunk of huge rows never sits here whole).
    const scratch = new Writer(64 * 1024, COPY_BATCH_BYTES);
    const framer = new CopyFramer(
      f,
      portal.prepared.fields!.map((x) => x.name),
    );
    framer.start(w);
    let rows = 0;
    this.sending = portal;
    try {
      for (;;) {
        const chunk = await this.nextChunk(portal);
        portal.chunk = chunk;
        if (!chunk || chunk.rowCount === 0) {
          this.assertNotStopped(portal);
          await lastRowRead(portal);
          assertReadUnchanged(portal);
          break;
        }
        for (let pos = 0; pos < chunk.rowCount;) {
          if (this.clock.stopRequested) throw this.clock.interruption();
          const written = portal.encoder!(chunk, scratch, pos, chunk.rowCount, this.turn.until());
          const encoded = scratch.length;
          const before = w.length;
          rows += framer.rows(scratch.flush(), w);
          if (pos === 0) this.prefetch(portal, (encoded / Math.max(written, 1)) * chunk.rowCount);
          pos += written;
          // The row and byte caps hold for COPY as for any result.
          portal.rows = rows;
          portal.bytes += w.length - before;
          this.checkResultLimits(portal, w, before);
          if (w.length >= FLUSH_BYTES) await this.deliver();
          if (this.out.closed) throw DISCONNECTED;
          await this.turn.yieldIfSpent();
        }
        chunk.reset();
      }
    } catch (e) {
      releaseChunks(portal);
      throw e;
    } finally {
      portal.chunk = null;
      portal.result = null;
      portal.done = true;
      if (this.sending === portal) this.sending = null;
    }
    framer.end(w);
    be.copyDone(w);
    be.commandComplete(w, `COPY ${rows}`);
  }

  /**
   * The row and byte caps. When `w` is given, the rows written since `before` are taken back from
   * the output on refusal, so no more than the caps ever reaches the client.
   */
  /**
   * Rows a cursor read ahead (cursor-rows.ts) go to the client: the same ceilings as rows streamed,
   * by the number of the last row sent (`lastRow`, 1-based) and the bytes sent; nothing is written
   * past them.
   */
  checkKeptRows(portal: Portal, lastRow: number, bytes: number): void {
    portal.bytes += bytes;
    this.checkResultLimits(portal, undefined, 0, lastRow);
  }

  private checkResultLimits(portal: Portal, w?: Writer, before = 0, rowsSent = portal.rows): void {
    const { maxResultRows, maxResultBytes } = this.limits;
    const over =
      (maxResultRows > 0 && rowsSent > maxResultRows) || (maxResultBytes > 0 && portal.bytes > maxResultBytes);
    if (over && w) w.truncate(before);
    if (maxResultRows > 0 && rowsSent > maxResultRows) {
      throw new SqlError(
        SQLSTATE.programLimitExceeded,
        `result exceeds the gateway's limit of ${maxResultRows} rows`,
        undefined,
        'Add a LIMIT or aggregate the result.',
      );
    }
    if (maxResultBytes > 0 && portal.bytes > maxResultBytes) {
      throw new SqlError(
        SQLSTATE.programLimitExceeded,
        `result exceeds the gateway's limit of ${maxResultBytes} bytes`,
        undefined,
        'Select fewer columns or rows.',
      );
    }
  }

  /**
   * Send what is written; when the client does not take it (the socket's queue is full), wait for it
   * only as long as the statement may run: its timeout, a cancel or the memory watchdog end the wait
   * with the statement's error, as PostgreSQL ends a statement on statement_timeout.
   */
  private async deliver(): Promise<void> {
    const waiting = this.out.flush();
    if (waiting) await this.clock.bound(waiting);
  }

  /**
   * What the statement being sent holds now (bytes, estimated): its chunks fetched, those DuckDB
   * holds for it, and its output not yet taken by the client. The memory watchdog stops the largest.
   */
  /** What the suspended results hold in the engine: their chunks fetched and those DuckDB keeps for each stream. */
  suspendedBytes(): number {
    let bytes = 0;
    for (const p of this.held.suspended())
      bytes += ((p.chunk ? 1 : 0) + p.ahead.length + ENGINE_CHUNKS) * (this.chunkBytes.get(p) ?? 0);
    return bytes;
  }

  heldBytes(): number {
    const out = this.out.w.length + (this.out.backlog ?? 0);
    const p = this.sending;
    if (!p || p.done) return out;
    const chunks = (p.chunk ? 1 : 0) + p.ahead.length + ENGINE_CHUNKS;
    return out + chunks * (this.chunkBytes.get(p) ?? 0);
  }

  /**
   * Keep chunks coming: each fetch starts when the previous one ends (DuckDB takes one call at a time
   * per connection), so DuckDB produces while JavaScript encodes and the socket drains. As many ahead
   * as fit PREFETCH_BYTES at `chunkBytes` each (up to PREFETCH_CHUNKS; none for chunks larger than it).
   */
  private prefetch(portal: Portal, chunkBytes: number): void {
    const result = portal.result;
    if (!result) return;
    this.chunkBytes.set(portal, chunkBytes);
    if (portal.whole) return; // every chunk is in portal.ahead already
    const wanted = Math.min(PREFETCH_CHUNKS, Math.floor(PREFETCH_BYTES / Math.max(chunkBytes, 1)));
    // Settled, never rejected: a prefetch nobody consumes (dropped portal) must not go unhandled.
    // The client is gone: no more work for DuckDB (an error, never an early end: that would look
    // like a complete result, e.g. to the result cache).
    const fetch = (): Promise<Fetched> =>
      this.clock.isAborted
        ? Promise.resolve({ chunk: null, error: DISCONNECTED })
        : this.call(() => (counted('result_call'), result.fetchChunk())).then(
            (chunk) => ({ chunk, error: null as unknown }),
            (error: unknown) => ({ chunk: null, error }),
          );
    while (portal.ahead.length < wanted) {
      const last = portal.ahead[portal.ahead.length - 1];
      const p = last
        ? last.then((r) => (r.error || !r.chunk || r.chunk.rowCount === 0 ? END_OF_RESULT : fetch()))
        : fetch();
      portal.ahead.push(p);
      this.inflight = p;
    }
  }

  /** The next chunk; the time waited for DuckDB to produce it is execution. */
  private async nextChunk(portal: Portal): Promise<DuckDBDataChunk | null> {
    const waiting = stageClock();
    try {
      const pending = portal.ahead.shift();
      if (pending) {
        const { chunk, error } = await pending;
        if (error) throw error;
        return chunk;
      }
      const result = portal.result;
      return result ? await this.call(() => (counted('result_call'), result.fetchChunk())) : null;
    } finally {
      spent('execution', waiting);
    }
  }
}

/**
 * Results of at most this many rows (DuckDB's vector size: one chunk) are run materialized, in one
 * DuckDB call, instead of streamed: a stream's start, its chunk and its end were three calls, each a
 * hop through libuv's pool, and DuckDB's streaming executor costs more CPU for a small result.
 */
export const WHOLE_ROWS = 2048;

/** A materialized result's chunks, each read in place (no call into DuckDB's threads). */
function wholeChunks(result: DuckDBMaterializedResult): Fetched[] {
  const out: Fetched[] = [];
  for (let i = 0; i < result.chunkCount; i++) out.push({ chunk: result.getChunk(i), error: null });
  return out;
}

/** DuckDB has read the run's last row: whether a name on the way to its files changed meanwhile (folder-watch.ts). */
async function lastRowRead(portal: Portal): Promise<void> {
  const watch = portal.watch;
  if (!watch) return;
  portal.watch = undefined;
  if (await watch.changed()) portal.readChanged = true;
}

/** COPY's rows are encoded this much at a time before they are framed. */
const COPY_BATCH_BYTES = 1024 * 1024;

/**
 * A stopped portal's chunks freed now: the one being sent and those fetched ahead; what DuckDB still
 * buffers for the stream goes with the result's wrapper, collected soon (session/native-memory.ts)
 * rather than at V8's next full collection, so a client that stopped reading holds nothing after.
 */
function releaseChunks(portal: Portal): void {
  releaseWatch(portal);
  portal.chunk?.reset();
  portal.chunk = null;
  for (const p of portal.ahead) void p.then((r) => r.chunk?.reset());
  portal.ahead = [];
  releaseNativeMemory();
}

/** EXPLAIN's value column: DuckDB's JSON plan rendered as the client asked (its key column passes as is). */
function explainText(format: ExplainHead['format']): (text: string) => string {
  return (text) =>
    text.startsWith('{') || text.startsWith('[')
      ? renderPlan(text, format, redactServerPaths)
      : redactServerPaths(text);
}
