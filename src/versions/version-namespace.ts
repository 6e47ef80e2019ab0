/**
 * What a version's database lets a statement's names reach, as one digest: two versions with the same
 * digest bind any text to the same catalog entries of their own databases, which differ only in the
 * files their tables read. The engine line (analysis/side-effects.ts) reuses across such versions the
 * verdict of a plan that read nothing of its version (the catalog emulation, generators, listings):
 * bound in one, the text would bind alike in the other.
 *
 * In the digest: the schemas; each table's name and columns, and whether its view reads anything at
 * all (a table without files or inlined rows is a view over no data, which leaves no scan in a plan;
 * one with data always scans its files, its native copy or its inlined rows, which the engine line
 * sees); each view's and macro's name and definition as the catalog holds them (they are created from
 * it in each version's own database, a plan of one may leave no scan). Names are as the catalog spells
 * them; comments are left out (they change no binding).
 */
import { createHash } from 'node:crypto';
import type { LakeCatalog } from '../lake/model.js';

export function versionNamespace(catalog: LakeCatalog): string {
  const byName = <T extends { schema: string; name: string }>(xs: readonly T[]) =>
    [...xs].sort((a, b) => (a.schema + '\u0000' + a.name < b.schema + '\u0000' + b.name ? -1 : 1));
  const content = {
    schemas: catalog.schemas.map((s) => s.name).sort(),
    tables: byName(catalog.tables).map((t) => [
      t.schema,
      t.name,
      t.columns.map((c) => [c.name, c.type]),
      t.dataFiles.length === 0 && t.inlined.length === 0 ? 'no data' : 'data',
    ]),
    views: byName(catalog.views).map((v) => [v.schema, v.name, v.sql, v.aliases]),
    macros: byName(catalog.macros).map((m) => [m.schema, m.name, m.definition]),
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('base64');
}
