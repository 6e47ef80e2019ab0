/**
 * The ceiling on the text the gateway composes from a client's text (the PostgreSQL rewrite, system
 * views, pinned versions): at most COMPOSED_TEXT_FACTOR times the client's length plus
 * COMPOSED_TEXT_ALLOWANCE, else 54001. Every rewrite is bounded by it, not only those known to grow:
 * one spelled LIKE ALL's left side once per pattern, and a 40 KB statement became 80 MB of SQL that
 * ran the whole gateway out of memory. Measured over the PostgreSQL corpus, the clients' texts and
 * the tests' statements (1,190 rewritten): the largest growth was 15× of a 12-character text and
 * 14× of 100 characters; by construct, a select list of divisions `a/b` grows most, 35×, each
 * divisor checked for zero and the quotient typed as PostgreSQL's.
 */
import { SqlError, SQLSTATE } from '../errors.js';

export const COMPOSED_TEXT_FACTOR = 64;
export const COMPOSED_TEXT_ALLOWANCE = 64 * 1024;

/** The longest text the gateway may compose from a client's text of `clientChars` characters. */
export function composedTextLimit(clientChars: number): number {
  return COMPOSED_TEXT_FACTOR * clientChars + COMPOSED_TEXT_ALLOWANCE;
}

/** Throws 54001 when `composed` is longer than the ceiling for `client`. */
export function refuseOverComposed(client: string, composed: string): void {
  const limit = composedTextLimit(client.length);
  if (composed.length <= limit) return;
  throw new SqlError(
    SQLSTATE.statementTooComplex,
    `statement is too complex: the gateway's translation of its ${client.length} characters for DuckDB has ${composed.length}, over its limit of ${limit}`,
    undefined,
    'Write it with fewer repetitions of long values (name a long value once, in a subquery or CTE), or split it into smaller statements.',
  );
}
