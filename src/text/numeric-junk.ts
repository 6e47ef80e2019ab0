/**
 * PostgreSQL 15's lexer refuses a number or a parameter followed at once by a letter (`0x263A`, `1_000`,
 * `0b101`, `1abc`, `$1a`: 42601 "trailing junk after numeric literal"). DuckDB reads `0x263A` as `0 AS
 * x263a` and `1_000` as 1000, and the PostgreSQL grammar the gateway parses with (a later release's) reads
 * hexadecimal, octal and binary integers and underscores: without this check they answered silently.
 */
import { mapSegments } from './split.js';

/** PostgreSQL's ident_start: a letter, an underscore, or any byte of a multi-byte character. */
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
/** A character that continues an identifier or a parameter, so digits after it are not a number of their own. */
const IDENT_CONT = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIGIT = /[0-9]/;

export interface NumericJunk {
  /** PostgreSQL's words, with the token it stopped at. */
  message: string;
  /** 1-based character position of the number, as PostgreSQL reports it. */
  position: number;
}

/** The first number or parameter of `sql`'s code followed at once by an identifier's character, or null. */
export function numericJunk(sql: string): NumericJunk | null {
  let found: NumericJunk | null = null;
  let offset = 0;
  mapSegments(sql, (kind, text) => {
    if (kind === 'code' && !found) found = junkIn(text, offset);
    offset += text.length;
    return text;
  });
  return found;
}

/** A digit or a point followed by an identifier's character: without one, no junk (one native scan). */
const MAYBE = /[0-9.][A-Za-z_\u0080-\uffff]/;

function junkIn(code: string, offset: number): NumericJunk | null {
  if (!MAYBE.test(code)) return null;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    const startsNumber = DIGIT.test(c) || (c === '.' && DIGIT.test(code[i + 1] ?? ''));
    const startsParam = c === '$' && DIGIT.test(code[i + 1] ?? '');
    if (!startsNumber && !startsParam) continue;
    // digits inside an identifier (`t1`), after a parameter's `$`, or a number's own fraction (`1.5`) are not a new token
    if (i > 0 && (IDENT_CONT.test(code[i - 1]!) || (c !== '$' && code[i - 1] === '.'))) continue;
    let j = startsParam ? i + 1 : i;
    while (DIGIT.test(code[j] ?? '')) j++;
    if (!startsParam) {
      // decimal: digits '.' digits (not `1..` of a range)
      if (code[j] === '.' && code[j + 1] !== '.') {
        j++;
        while (DIGIT.test(code[j] ?? '')) j++;
      }
      // real: an exponent with its digits; `1e` alone is an integer followed by junk
      const sign = code[j + 1] === '+' || code[j + 1] === '-' ? 1 : 0;
      if ((code[j] === 'e' || code[j] === 'E') && DIGIT.test(code[j + 1 + sign] ?? '')) {
        j += 1 + sign;
        while (DIGIT.test(code[j] ?? '')) j++;
      }
    }
    if (IDENT_START.test(code[j] ?? ''))
      return {
        message: `trailing junk after ${startsParam ? 'parameter' : 'numeric literal'} at or near "${code.slice(i, j + 1)}"`,
        position: offset + i + 1,
      };
    i = j - 1;
  }
  return null;
}
