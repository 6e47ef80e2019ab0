/**
 * An SQL cursor's rows on the wire: FETCH and MOVE in every direction. DuckDB's stream only goes
 * forward, so a SCROLL cursor keeps the DataRows it has read (its last SCROLL_KEPT_ROWS rows, at most
 * SCROLL_KEPT_BYTES) and goes back among them; going back further is refused (54000), never answered
 * short. A cursor without SCROLL keeps only rows read ahead of its position and refuses to go back
 * (55000, as PostgreSQL for NO SCROLL). Where a move lands is decided in session/cursor-moves.ts.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { moveCursor, cannotScanBackward, type CursorPlace } from '../session/cursor-moves.js';
import type { FetchDirection } from '../text/classify.js';
import { assertReadUnchanged, checkReadSoFar, portalFields, type Portal } from './portal.js';
import type { FieldDescription } from './backend.js';
import type { ResultStream } from './result-stream.js';
import { Writer } from './writer.js';

export const SCROLL_KEPT_ROWS = 100_000;
export const SCROLL_KEPT_BYTES = 64 * 1024 * 1024;
/** Rows read from DuckDB at a time when a move needs rows ahead. */
const PULL_ROWS = 1024;

/** What an SQL cursor (DECLARE) adds to its portal. */
export interface CursorState {
  /** DECLAREd (owns a reference to its statement), or a protocol portal that a FETCH/MOVE reads. */
  declared: boolean;
  hold: boolean;
  scroll: boolean;
  /** The transaction scopes it was declared in (session/cursors.ts: rolling one back drops it). */
  scopes: readonly number[];
  place: CursorPlace;
  /** DataRow messages of rows keptFrom, keptFrom + 1, … (1-based), encoded in the portal's formats. */
  kept: Buffer[];
  keptFrom: number;
  keptBytes: number;
}

export function newCursorState(hold: boolean, scroll: boolean, scopes: readonly number[] = []): CursorState {
  return { declared: true, hold, scroll, scopes, place: { pos: 0, end: null }, kept: [], keptFrom: 1, keptBytes: 0 };
}

/** FETCH/MOVE on a protocol portal (asyncpg's Cursor.forward): forward-only, from the rows Execute already sent. */
export function protocolPortalCursor(portal: Portal): CursorState {
  const c: CursorState = { ...newCursorState(false, false), declared: false };
  c.place.pos = portal.rows;
  c.keptFrom = portal.rows + 1;
  if (portal.done) {
    c.place.end = portal.rows;
    c.place.pos = portal.rows + 1;
  }
  return c;
}

/** RowDescription of a cursor's rows as a FETCH sends them, in `formats`. */
export function cursorFields(cursor: Portal, formats: (0 | 1)[]): FieldDescription[] {
  return portalFields(cursor).map((f, i) => ({ ...f, format: formats[i] ?? 0 }));
}

/** A writer that keeps what it hands out: the DataRows a pull produced. */
class CollectingWriter extends Writer {
  readonly out: Buffer[] = [];
  override flush(): Buffer {
    const b = super.flush();
    if (b.length > 0) this.out.push(b);
    return b;
  }
}

/**
 * FETCH (rows into `w`) or MOVE (`move`) a cursor as `dir` says, its rows encoded in `formats`;
 * returns how many rows were sent or passed over.
 */
export async function fetchCursor(
  stream: ResultStream,
  portal: Portal,
  name: string,
  dir: FetchDirection,
  move: boolean,
  w: Writer,
  formats: (0 | 1)[],
): Promise<number> {
  const c = portal.cursor!;
  if (c.kept.length > 0 && !formats.every((f, i) => f === portal.resultFormats[i])) {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `cursor "${name}" holds rows in another format: fetch them in the format of the earlier FETCHes`,
    );
  }
  stream.useFormats(portal, formats);
  // A protocol portal's next Execute reads DuckDB's stream on: it never holds rows read ahead.
  if (!c.declared && dir.how !== 'forward')
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `FETCH ${dir.how.toUpperCase()} on the protocol portal "${name}" is not supported`,
      undefined,
      'Declare a cursor (DECLARE … SCROLL CURSOR) to move in any direction.',
    );
  if (!c.scroll && dir.how === 'forward' && dir.count > 0 && c.kept.length === 0)
    return readUnchanged(portal, await streamForward(stream, portal, dir.count, move, w));
  // A SCROLL cursor reading on from its last row read (psycopg 3's named cursors, declared without NO SCROLL):
  // its rows go to the client in batches and are kept as they go, not fetched one by one.
  if (c.scroll && dir.how === 'forward' && dir.count > 0 && c.place.pos === portal.rows && c.place.end === null)
    return readUnchanged(portal, await keepForward(stream, portal, dir.count, move, w));
  const rows = await moveCursor(c.place, dir, c.scroll, {
    rowAt: (i) => rowAt(stream, portal, name, i),
    count: () => portal.rows,
  });
  if (!move) {
    const last = Math.min(c.place.pos, c.place.end ?? Infinity);
    stream.checkKeptRows(
      portal,
      last,
      rows.reduce((n, r) => n + r.length, 0),
    );
    for (const r of rows) w.bytes(r);
  }
  if (!c.scroll) dropKeptBefore(c, c.place.pos + 1); // rows behind a forward-only cursor are never read again
  return readUnchanged(portal, rows.length);
}

/**
 * `n`, the rows fetched, unless a name on the way to the files they were read from changed meanwhile (XX001): asked at
 * every FETCH, since a cursor need not be read to its end.
 */
async function readUnchanged(portal: Portal, n: number): Promise<number> {
  await checkReadSoFar(portal);
  assertReadUnchanged(portal);
  return n;
}

/** The common case, a forward-only cursor read on: rows go from DuckDB straight to the client. */
async function streamForward(
  stream: ResultStream,
  portal: Portal,
  count: number,
  move: boolean,
  w: Writer,
): Promise<number> {
  const place = portal.cursor!.place;
  if (portal.done) {
    place.end ??= portal.rows;
    place.pos = place.end + 1;
    return 0;
  }
  const before = portal.rows;
  const suspended = await stream.pump(portal, count === Infinity ? 0 : count, move ? new Writer(64 * 1024) : w);
  const n = portal.rows - before;
  place.pos += n;
  if (!suspended) {
    place.end = portal.rows;
    place.pos = place.end + 1;
  }
  return n;
}

/**
 * A SCROLL cursor read on from its last row: up to `count` rows read from DuckDB PULL_ROWS at a time,
 * kept (its last SCROLL_KEPT_ROWS within SCROLL_KEPT_BYTES) and sent as they come; the same rows and
 * place as moveCursor's one-by-one reading.
 */
async function keepForward(stream: ResultStream, portal: Portal, count: number, move: boolean, w: Writer) {
  const c = portal.cursor!;
  const place = c.place;
  let n = 0;
  while (n < count && !portal.done) {
    if (c.kept.length === 0) c.keptFrom = portal.rows + 1;
    const sink = new CollectingWriter(64 * 1024);
    const before = portal.rows;
    await stream.pump(portal, Math.min(count - n, PULL_ROWS), sink);
    sink.flush();
    const got = portal.rows - before;
    n += got;
    place.pos += got;
    for (const b of sink.out) keep(c, b);
    if (!move) {
      stream.checkKeptRows(
        portal,
        place.pos,
        sink.out.reduce((bytes, b) => bytes + b.length, 0),
      );
      for (const b of sink.out) w.bytes(b);
    }
    dropKeptBefore(c, keptLimitFrom(c));
    if (got === 0) break;
  }
  if (n < count && portal.done) {
    place.end = portal.rows;
    place.pos = place.end + 1;
  }
  return n;
}

/** Row `i`'s DataRow: kept, or read on from DuckDB; null past the last row. */
async function rowAt(stream: ResultStream, portal: Portal, name: string, i: number): Promise<Buffer | null> {
  const c = portal.cursor!;
  if (i <= portal.rows) {
    const k = i - c.keptFrom;
    if (k >= 0 && k < c.kept.length) return c.kept[k]!;
    if (!c.scroll) throw cannotScanBackward();
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `cursor "${name}" can scroll back over its last ${SCROLL_KEPT_ROWS} rows (${SCROLL_KEPT_BYTES / 1024 / 1024} MiB) only: row ${i} is no longer held`,
      undefined,
      'Fetch the rows again with a new cursor, or keep the rows you need in the client.',
    );
  }
  while (portal.rows < i && !portal.done) await pull(stream, portal, Math.max(i - portal.rows, 64), i);
  const k = i - c.keptFrom;
  return i <= portal.rows && k >= 0 && k < c.kept.length ? c.kept[k]! : null;
}

/**
 * Read up to `n` more rows from DuckDB into the kept rows. Rows before `from` may go: a forward-only
 * cursor never reads them again; a SCROLL cursor lets its oldest go past the cap.
 */
async function pull(stream: ResultStream, portal: Portal, n: number, from: number): Promise<void> {
  const c = portal.cursor!;
  const sink = new CollectingWriter(64 * 1024);
  if (c.kept.length === 0) c.keptFrom = portal.rows + 1; // rows streamed straight to the client were never kept
  await stream.pump(portal, Math.min(n, PULL_ROWS), sink);
  sink.flush();
  for (const b of sink.out) keep(c, b);
  dropKeptBefore(c, c.scroll ? Math.min(from, keptLimitFrom(c)) : from);
}

/**
 * Another statement is about to run on the connection, which ends DuckDB's open stream: the cursor
 * reads the rest of its rows first (at most the cap ahead of its position), so it reads on as
 * PostgreSQL's would. Past the cap the stream ends and resuming it fails (55000), never short.
 * A protocol portal (pgjdbc's fetch size, asyncpg's cursor) suspended by Execute is read ahead the
 * same way: its next Execute sends the rows kept (sendKeptRows).
 */
export async function parkCursor(stream: ResultStream, portal: Portal, budget = SCROLL_KEPT_BYTES): Promise<void> {
  const c = (portal.cursor ??= protocolPortalCursor(portal));
  // Rows read ahead and sent from the kept ones are not recorded: the result cache must never keep part of a result.
  portal.recording = undefined;
  const from = c.place.pos + 1;
  const bytes = Math.min(SCROLL_KEPT_BYTES, budget);
  while (!portal.done && portal.rows - c.place.pos < SCROLL_KEPT_ROWS && c.keptBytes < bytes)
    await pull(stream, portal, PULL_ROWS, from);
}

/** Bytes of rows every portal of a session holds read ahead together (one portal may hold SCROLL_KEPT_BYTES). */
export const SESSION_KEPT_BYTES = SCROLL_KEPT_BYTES;

/** Bytes a portal holds read ahead. */
export function keptBytes(portal: Portal): number {
  return portal.cursor?.keptBytes ?? 0;
}

/** Split a buffer of DataRow messages into the cursor's kept rows. */
function keep(c: CursorState, b: Buffer): void {
  for (let p = 0; p < b.length;) {
    const end = p + 1 + b.readInt32BE(p + 1);
    c.kept.push(b.subarray(p, end));
    c.keptBytes += end - p;
    p = end;
  }
}

/** The first row a SCROLL cursor may still keep: its last SCROLL_KEPT_ROWS rows within SCROLL_KEPT_BYTES. */
function keptLimitFrom(c: CursorState): number {
  let from = c.keptFrom;
  let k = 0;
  let bytes = c.keptBytes;
  while (c.kept.length - k > SCROLL_KEPT_ROWS || (bytes > SCROLL_KEPT_BYTES && c.kept.length - k > 1)) {
    bytes -= c.kept[k]!.length;
    k++;
    from++;
  }
  return from;
}

/** Let go of kept rows before row `from`. */
export function dropKeptBefore(c: CursorState, from: number): void {
  const n = Math.min(Math.max(from - c.keptFrom, 0), c.kept.length);
  if (n === 0) return;
  for (let k = 0; k < n; k++) c.keptBytes -= c.kept[k]!.length;
  c.kept.splice(0, n);
  c.keptFrom += n;
}

/**
 * Execute of a protocol portal that was read ahead (parkCursor): up to `maxRows` (0 = all) of its
 * rows, kept or, past them, from DuckDB's stream if it is still open. Returns true when `maxRows`
 * were sent (PortalSuspended, as PostgreSQL says even if no row follows).
 */
export async function sendKeptRows(stream: ResultStream, portal: Portal, maxRows: number, w: Writer): Promise<boolean> {
  const n = await fetchCursor(
    stream,
    portal,
    '',
    { how: 'forward', count: maxRows > 0 ? maxRows : Infinity },
    false,
    w,
    portal.resultFormats,
  );
  return maxRows > 0 && n === maxRows;
}

/** A protocol portal that holds rows read ahead for its next Execute. */
export function hasKeptRows(portal: Portal): boolean {
  return portal.cursor !== undefined && !portal.cursor.declared && portal.cursor.kept.length > 0;
}
