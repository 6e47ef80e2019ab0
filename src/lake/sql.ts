/** SQL text helpers: every identifier and literal the reader emits goes through these. */
import type { DuckDBConnection } from '@duckdb/node-api';

/** Double-quoted identifier and single-quoted literal: src/quote.ts, under the names the reader uses. */
export { quoteIdent as qi, quoteLiteral as lit } from '../quote.js';

export type Row = Record<string, unknown>;

/** A catalog row's visibility at snapshot `s` (DuckLake: begin inclusive, end exclusive). */
export const visibleAt = (s: number, alias = '') =>
  `${s} >= ${alias}begin_snapshot AND (${alias}end_snapshot IS NULL OR ${s} < ${alias}end_snapshot)`;

/** Run a query and return rows as plain objects (BIGINT as string, see getRowObjectsJson). */
export async function rows(conn: DuckDBConnection, sql: string): Promise<Row[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJson() as Row[];
}

export function num(v: unknown): number {
  return v === null || v === undefined ? NaN : Number(v);
}

export function optNum(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

export function str(v: unknown): string {
  return v === null || v === undefined ? '' : String(v);
}

export function optStr(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
