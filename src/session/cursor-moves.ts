/**
 * Where a FETCH or MOVE leaves a cursor and which rows it returns, as PostgreSQL's portal code
 * decides (DoPortalRunFetch): a position 0 (before the first row) … N (the last) … N+1 (after it),
 * rows read through `rowAt`. No rows, no sockets here: the wire keeps and sends them
 * (wire/cursor-rows.ts); unit-tested directly.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { FetchDirection } from '../text/classify.js';

export interface CursorPlace {
  /** 0 before the first row, i on row i, end + 1 after the last. */
  pos: number;
  /** The number of rows, once a read past the last one has found it. */
  end: number | null;
}

export interface CursorRows<R> {
  /** Row `i` (1-based), or null when the result has fewer rows; throws when the row cannot be had again. */
  rowAt(i: number): R | null | Promise<R | null>;
  /** How many rows the result has: asked only once rowAt has answered null (all were read). */
  count(): number;
}

/** A cursor declared without SCROLL asked to go back: PostgreSQL's refusal for NO SCROLL cursors. */
export function cannotScanBackward(): SqlError {
  return new SqlError(
    SQLSTATE.objectNotInPrerequisiteState,
    'cursor can only scan forward',
    undefined,
    'Declare it with SCROLL option to enable backward scan.',
  );
}

/**
 * Move `place` as `dir` says and return the rows FETCH sends (MOVE counts them). A cursor that does
 * not `scroll` is refused (55000) before it would go back or read a row again.
 */
export async function moveCursor<R>(
  place: CursorPlace,
  dir: FetchDirection,
  scroll: boolean,
  source: CursorRows<R>,
): Promise<R[]> {
  const back = () => {
    if (!scroll) throw cannotScanBackward();
  };
  const at = async (i: number): Promise<R | null> => {
    if (place.end !== null && i > place.end) return null;
    const row = await source.rowAt(i);
    if (row === null) place.end = source.count();
    return row;
  };
  const onRow = () => place.pos >= 1 && (place.end === null || place.pos <= place.end);
  const rows: R[] = [];
  /** Go to row i (or before the first / after the last) and return it when there is one. */
  const goTo = async (i: number) => {
    if (i < 1) {
      place.pos = 0;
      return;
    }
    const row = await at(i);
    if (row === null) place.pos = place.end! + 1;
    else {
      place.pos = i;
      rows.push(row);
    }
  };
  const { how, count } = dir;
  if ((how === 'forward' || how === 'backward' || how === 'relative') && count === 0) {
    // Re-read the current row: a step back and one forward.
    if (onRow()) {
      back();
      await goTo(place.pos);
    }
    return rows;
  }
  switch (how) {
    case 'forward':
      for (let k = 0; k < count; k++) {
        const row = await at(place.pos + 1);
        if (row === null) {
          place.pos = place.end! + 1;
          break;
        }
        place.pos++;
        rows.push(row);
      }
      return rows;
    case 'backward':
      back();
      for (let k = 0; k < count; k++) {
        if (place.pos - 1 < 1) {
          place.pos = 0;
          break;
        }
        const row = await at(place.pos - 1);
        place.pos--;
        rows.push(row!);
      }
      return rows;
    case 'absolute':
      if (count > 0) {
        if (count <= place.pos) back();
        await goTo(count);
      } else {
        back();
        if (count === 0) place.pos = 0;
        else await goTo((await lastRow(place, at)) + 1 + count);
      }
      return rows;
    case 'relative':
      if (count < 0) back();
      await goTo(place.pos + count);
      return rows;
  }
}

/** The number of rows: read on to the end. */
async function lastRow<R>(place: CursorPlace, at: (i: number) => Promise<R | null>): Promise<number> {
  let i = Math.max(place.pos, 0) + 1;
  while (place.end === null) await at(i++);
  return place.end;
}
