/**
 * A parameter the protocol can never supply: Bind carries at most 65,535 values, and `$0` is none. Refused
 * from the text, before anything sizes work by the highest number DuckDB reports: `select $2000000000` had
 * held the event loop 40 s and 1.4 GB in per-parameter loops (attacker review, session 56). PostgreSQL says
 * 42P02 "there is no parameter $n" for $0 and past 536,870,911; between, its Parse passes and no Bind can follow.
 */
import { mapSegments } from './split.js';

export const MAX_PARAMETER_NUMBER = 65_535;

/** `$n` tokens in code (not `t$1` or `$tag$`: dollar quotes are segments of their own). */
const PARAM = /(?<![\w$\u0080-\uffff])\$(\d+)/g;

/** The first `$n` of `sql`'s code that no Bind can supply, or null. */
export function unsuppliableParameter(sql: string): string | null {
  if (!sql.includes('$')) return null;
  let found: string | null = null;
  mapSegments(sql, (kind, text) => {
    if (kind === 'code' && !found)
      for (const m of text.matchAll(PARAM)) {
        const digits = m[1]!.replace(/^0+(?=\d)/, '');
        if (digits === '0' || digits.length > 5 || Number(digits) > MAX_PARAMETER_NUMBER) {
          found = `$${digits}`;
          break;
        }
      }
    return text;
  });
  return found;
}

/** The numbers of the `$n` tokens in `sql`'s code (those past the ceiling are refused before: unsuppliableParameter). */
export function parameterNumbers(sql: string): Set<number> {
  const found = new Set<number>();
  if (!sql.includes('$')) return found;
  mapSegments(sql, (kind, text) => {
    if (kind === 'code') for (const m of text.matchAll(PARAM)) found.add(Number(m[1]));
    return text;
  });
  return found;
}
