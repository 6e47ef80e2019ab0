/**
 * RelationTypes (pg/operand-types.ts) for rewrite tests without a gateway: tables by `schema.name` with their
 * columns' DuckDB types, a bare name found on a search path — the basic fixture's HEAD version as the real
 * extension recorded its tables (expected/basic), or tables given by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RelationTypes } from '../../src/pg/operand-types.js';
import { FIXTURES } from './lake-fixtures.js';

export function relationTypes(
  tables: Record<string, Record<string, string>>,
  search: readonly string[],
  key = JSON.stringify([tables, search]),
): RelationTypes {
  const byName = new Map(Object.entries(tables).map(([k, cols]) => [k, new Map(Object.entries(cols))]));
  return {
    key,
    columns: (schema, name) => {
      for (const s of schema === undefined ? search : [schema]) {
        const found = byName.get(`${s}.${name}`);
        if (found) return found;
      }
      return undefined;
    },
  };
}

/** The basic fixture's HEAD version's tables, on the gateway's default search path (its schemas, main first). */
export function basicHeadTypes(): RelationTypes {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: Record<string, { refs: Record<string, string> }>;
  };
  const head = manifest.repos.basic!.refs['refs/heads/main']!;
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected', 'basic', `${head}.json`), 'utf8')) as {
    tables: Record<string, { name: string; type: string }[]>;
  };
  const tables = Object.fromEntries(
    Object.entries(expected.tables).map(([t, cols]) => [t, Object.fromEntries(cols.map((c) => [c.name, c.type]))]),
  );
  return relationTypes(tables, ['main', 'sales'], `basic ${head}`);
}
