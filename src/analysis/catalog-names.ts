/**
 * Names tools write that PostgreSQL resolves and DuckDB would not: `<connected database>.schema.table`
 * (many tools qualify with current_database()) and `public.table` where the version has no `public`
 * schema (DuckLake's default schema is `main`, which stands for PostgreSQL's `public`). Each is
 * respelled at the position DuckDB's own parse gives for the relation (RelationRef.location), never by
 * searching the text: the catalog part becomes the session's version database, `public` becomes `main`.
 */
import type { RelationRef } from './analysis.js';
import { quoteIdent } from '../quote.js';

export interface NameScope {
  /** The repository the session connected to (lower-cased comparison). */
  repo: string;
  /** The DuckDB database of the session's own version. */
  versionDb: string;
  /** The version's schemas. */
  schemas: readonly string[];
}

/** `sql` with such names respelled, or null when no relation needs it. */
export function respellCatalogNames(sql: string, relations: readonly RelationRef[], scope: NameScope): string | null {
  const edits: { start: number; end: number; text: string }[] = [];
  const publicIsMain = !scope.schemas.includes('public') && scope.schemas.includes('main');
  const repo = scope.repo.toLowerCase();
  for (const r of relations) {
    if (r.location === undefined || r.location >= sql.length) continue;
    const ownCatalog = r.catalog !== '' && r.catalog === repo && repo !== scope.versionDb.toLowerCase();
    const publicSchema = publicIsMain && r.schema === 'public';
    if (!ownCatalog && !publicSchema) continue;
    const parts = nameParts(sql, r.location, r.catalog !== '' ? 3 : 2);
    if (!parts) continue;
    if (ownCatalog) edits.push({ ...parts[0]!, text: quoteIdent(scope.versionDb) });
    if (publicSchema) edits.push({ ...parts[r.catalog !== '' ? 1 : 0]!, text: 'main' });
  }
  if (edits.length === 0) return null;
  edits.sort((a, b) => b.start - a.start);
  let out = sql;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

const PLAIN = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const GAP = /(?:\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/y;

/** The spans of `count` dotted name parts starting at `at` (quoted or plain), or null if the text differs. */
function nameParts(sql: string, at: number, count: number): { start: number; end: number }[] | null {
  const spans: { start: number; end: number }[] = [];
  let i = at;
  for (let k = 0; k < count; k++) {
    if (k > 0) {
      i = skipGap(sql, i);
      if (sql[i] !== '.') return null;
      i = skipGap(sql, i + 1);
    }
    const end = identifierEnd(sql, i);
    if (end === null) return null;
    spans.push({ start: i, end });
    i = end;
  }
  return spans;
}

function skipGap(sql: string, i: number): number {
  GAP.lastIndex = i;
  GAP.exec(sql);
  return GAP.lastIndex;
}

function identifierEnd(sql: string, i: number): number | null {
  if (sql[i] === '"') {
    for (let j = i + 1; j < sql.length; j++) {
      if (sql[j] === '"') {
        if (sql[j + 1] === '"') j++;
        else return j + 1;
      }
    }
    return null;
  }
  PLAIN.lastIndex = i;
  return PLAIN.test(sql) ? PLAIN.lastIndex : null;
}
