/**
 * What one user's portals hold in the gateway's own memory, across all their sessions: bound
 * parameters (Bind) and DataRows kept (a SCROLL cursor's rows to go back among, rows read ahead of a
 * suspended portal). Neither is DuckDB's memory, so neither its memory_limit nor the watchdog saw
 * them: an attacker review held 16 idle SCROLL cursors × 64 MiB (1.6 GB RSS) and 120 suspended
 * portals × a 20 MB parameter (2.5 GB), and every other user's statement then failed 53200. Their
 * sum is bounded per user (USER_HELD_BYTES): a Bind past it is refused 53400, and a SCROLL cursor
 * lets its oldest kept rows go first (going back to them is then 54000, as past its own cap).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { UserHoldings } from '../session/user-holdings.js';
import { dropKeptBefore, keptBytes } from './cursor-rows.js';
import type { Portal } from './portal.js';

/** Bytes of parameters and kept rows one user's portals may hold together. */
export const USER_HELD_BYTES = 256 * 1024 * 1024;

type Portals = ReadonlyMap<string, Portal>;
const sessions = new UserHoldings<Portals>();

/** A session's portals count for `user` until the returned release is called. */
export const holdPortals = (user: string, portals: Portals): (() => void) => sessions.hold(user, portals);

/** Bytes of a Bind's parameter values. */
export const paramBytes = (params: readonly (Buffer | null)[]): number =>
  params.reduce((n, p) => n + (p?.length ?? 0), 0);

const portalBytes = (p: Portal): number => paramBytes(p.params) + keptBytes(p);

/** What the user of `portals` holds in all their sessions, `except` one portal. */
export function heldByUser(portals: Portals, except?: Portal): number {
  let held = 0;
  for (const session of [portals, ...sessions.others(portals)])
    for (const p of session.values()) if (p !== except) held += portalBytes(p);
  return held;
}

/** 53400 when a Bind's `bytes` of parameters would take the user past USER_HELD_BYTES. */
export function roomForParams(portals: Portals, replacing: Portal | undefined, bytes: number): void {
  if (bytes === 0) return;
  const held = heldByUser(portals, replacing);
  if (held + bytes <= USER_HELD_BYTES) return;
  throw new SqlError(
    SQLSTATE.configurationLimitExceeded,
    `the portals and cursors of this user's sessions would hold ${held + bytes} bytes of parameters and rows: the limit is ${USER_HELD_BYTES}`,
    undefined,
    'Close portals and cursors the sessions no longer read (Close, CLOSE, COMMIT), or send large values in fewer open portals.',
  );
}

/** A SCROLL cursor that just kept more rows lets its oldest go while the user holds more than USER_HELD_BYTES. */
export function keepWithinUserBudget(portals: Portals, cursor: Portal): void {
  const c = cursor.cursor;
  if (!c?.scroll || c.kept.length <= 1) return;
  const over = heldByUser(portals) - USER_HELD_BYTES;
  if (over <= 0) return;
  let freed = 0;
  let from = c.keptFrom;
  for (let k = 0; k < c.kept.length - 1 && freed < over; k++, from++) freed += c.kept[k]!.length;
  dropKeptBefore(c, from);
}
