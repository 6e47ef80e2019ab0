/** SQL text for the catalog's own data (never for client input: that goes through bound parameters). */
import { C } from './names.js';
import { quoteLiteral } from '../../quote.js';

/** SQL literal for a JS value (catalog data only: strings, numbers, booleans, null, arrays of those). */
export function lit(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(lit).join(', ')}]`;
  return quoteLiteral(String(v));
}

/** PostgreSQL's text form of an array ('{a,b}') → list literal. */
export function pgArrayText(v: unknown): string {
  if (typeof v !== 'string' || !v.startsWith('{')) return 'NULL';
  const items = v
    .slice(1, -1)
    .split(',')
    .filter((s) => s !== '')
    .map((s) => s.replace(/^"|"$/g, ''));
  return lit(items);
}

export function valuesTable(
  name: string,
  cols: ReadonlyArray<readonly [string, string]>,
  rows: ReadonlyArray<readonly unknown[]>,
): string[] {
  const def = cols.map(([n, t]) => `"${n}" ${t}`).join(', ');
  const out = [`CREATE TABLE ${C}${name} (${def})`];
  if (rows.length > 0)
    out.push(`INSERT INTO ${C}${name} VALUES ${rows.map((r) => `(${r.map(lit).join(', ')})`).join(',\n')}`);
  return out;
}

/**
 * `a || b || …` as the built-in (system.main's `||`), for the catalog's own texts of bounded size (names,
 * type spellings, numbers, a privilege list a client typed): the session guards shadow `||` with a macro
 * (engine/concat-guards.ts), and pasted into every operator of a catalog helper it doubled the helper's
 * bind and run (format_type's 78 operators). Never for a value a client could feed its own result.
 */
export function joined(...parts: string[]): string {
  return parts.reduce((left, right) => `system.main."||"(${left}, ${right})`);
}
