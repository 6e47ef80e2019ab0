/**
 * Functions PostgreSQL 15 has and the gateway does not emulate: refused 0A000 with what to write instead.
 * DuckDB lacks them, and its 42883 "does not exist" told a user a PostgreSQL function was missing
 * (new-user review, session 50). The pre-check (rewrite-precheck.ts UNSUPPORTED_CALL) sends their calls here.
 */
import { refuse } from './pg-calls.js';

const INSTEAD: ReadonlyMap<string, string> = new Map([
  ['div', 'For integers use trunc(a::numeric / b) (a and b numeric: trunc(a / b)), which is what div() returns.'],
  ['pg_client_encoding', "The gateway's client encoding is always UTF8: current_setting('client_encoding')."],
  ['hashtext', "PostgreSQL's internal hash has no equivalent: use md5(s) or hash(s) for a stable hash of your own."],
]);

/** Throws 0A000 for a call of one of those functions (by its unqualified or pg_catalog name). */
export function unsupportedFunctionRefused(name: string): void {
  const instead = INSTEAD.get(name);
  if (instead) throw refuse(`${name}()`, instead);
}
