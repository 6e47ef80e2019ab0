/**
 * `x IN $1`: PostgreSQL's grammar has no IN over a parameter (42601 at the `$1`), DuckDB's reads a
 * list there. psycopg 3 sends a tuple so (`where x in %s`, ((1, 2),)): PostgreSQL refuses it, and the
 * gateway answered with DuckDB's reading or its cast error (22P02). The client's text is refused as
 * PostgreSQL refuses it, with how to write the list instead.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { mapSegments } from '../text/split.js';

const IN_PARAMETER = /\bin\s*(\$\d+)/gi;

/** Whether `at` is directly inside `position(…)`, whose `a IN b` is the function's syntax. */
function inPosition(code: string, at: number): boolean {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (code[i] === ')') depth++;
    else if (code[i] === '(' && depth-- === 0) return /\bposition\s*$/i.test(code.slice(0, i));
  }
  return false;
}

export function refuseInParameter(clientText: string): void {
  if (!clientText.includes('$')) return;
  const code = mapSegments(clientText, (kind, text) => (kind === 'code' ? text : ' '));
  const m = [...code.matchAll(IN_PARAMETER)].find((x) => !inPosition(code, x.index));
  if (m)
    throw new SqlError(
      SQLSTATE.syntaxError,
      `syntax error at or near "${m[1]}"`,
      undefined,
      'IN takes a parenthesized list: write x = ANY($1) with an array parameter (psycopg 3 sends a Python list as one), or x IN ($1, $2, …).',
    );
}
