/**
 * The SQL of one table view: UNION ALL of
 *   - field-id Parquet files (read_parquet `schema := MAP{field_id: …}`), grouped by encryption key
 *     and declared shape. Files without deletes are read plainly (no virtual columns, no join: a
 *     plain scan keeps DuckDB's parallel, projection- and filter-pushed read); only files that have
 *     deletes or a partial-snapshot filter get the (file_index, file_row_number) anti-join;
 *   - name-mapped files (ducklake_add_data_files) and legacy positional files, by column name;
 *   - every inlined data table, mapped by field id through the columns it was created with.
 * Internal column names (c<id>, _snap) never collide with user names or read_parquet virtual columns.
 */
import type { DataFile, LakeTable, NameMapEntry } from './model.js';
import { hivePartitions, partitionValueSql } from './hive.js';
import { convert, defaultExpr, sameShape, shapeType, type SrcNode } from './nested.js';
import { lit, qi } from './sql.js';
import { type ColNode, sqlType } from './types.js';

/** Field id DuckLake writes for the per-row origin snapshot in compacted/flushed files. */
export const SNAPSHOT_FIELD_ID = 2147483539;
/** Field id of the row id DuckLake embeds in files whose rows keep older ids (updates, compaction). */
export const ROW_ID_FIELD_ID = 2147483540;

/**
 * Extra columns `tableSql(…, identity = true)` gives every row, for writers of deletes and updates:
 * its data file id and 0-based position in that file (NULL for inlined rows), the inlined table that
 * holds it (NULL for files), and its DuckLake row id.
 */
export const IDENTITY_COLUMNS = ['__fdl_file', '__fdl_pos', '__fdl_inlined', '__fdl_rowid'] as const;

export interface TableSqlContext {
  snapshot: number;
  metaAlias: string;
  locate: (rel: string) => string;
  nameMaps: Map<number, NameMapEntry[]>;
  /** Probed Parquet shapes (top-level nodes) by data file id; absent: assume today's shape. */
  shapes: Map<number, SrcNode[]>;
  /** Decoded deletion-vector positions by data file id. */
  dvPositions: Map<number, number[]>;
}

const colAlias = (c: ColNode) => `c${c.id}`;

/** Up to this many files with deletes get a read_parquet each; more share one (binding cost). */
const SEPARATE_DELETE_READS = 16;

/**
 * read_parquet's virtual columns under names no file uses. (The `file_row_number := true` option
 * would fail on files that have a real column of that name.) file_index is the 0-based position
 * in the path list — distinct even when a path is listed twice, unlike filename.
 */
const VIRTUAL = 'file_index AS __ducklake_fi, file_row_number AS __ducklake_pos';

function encryptionArg(key: string | null): string {
  return key === null ? '' : `, encryption_config := {footer_key_value: from_base64(${lit(key)})}`;
}

function pathList(files: { path: string }[], ctx: TableSqlContext): string {
  return `[${files.map((f) => lit(ctx.locate(f.path))).join(', ')}]`;
}

/** Positions deleted at S for the files of one read_parquet group, as (fi, pos) rows. */
function deletesSql(files: DataFile[], ctx: TableSqlContext): string | null {
  const S = ctx.snapshot;
  const parts: string[] = [];
  const fileIndex = new Map(files.map((f, i) => [f.id, i]));
  // Parquet delete files: one read per (key, has snapshot column) group.
  const groups = new Map<string, { key: string | null; filter: boolean; items: { fi: number; path: string }[] }>();
  for (const f of files) {
    const d = f.delete;
    if (!d || d.format !== 'parquet') continue;
    const filter = d.partialMax !== null && d.partialMax > S;
    const g = `${d.key ?? ''}|${filter}`;
    if (!groups.has(g)) groups.set(g, { key: d.key, filter, items: [] });
    groups.get(g)!.items.push({ fi: fileIndex.get(f.id)!, path: d.path });
  }
  for (const g of groups.values()) {
    // delete file list position → data file index, as a list lookup (cheaper to bind than VALUES)
    const fis = `[${g.items.map((it) => it.fi).join(', ')}]`;
    parts.push(
      `SELECT ${fis}[d.di::BIGINT + 1]::BIGINT AS fi, d.pos FROM (SELECT file_index AS di, pos${g.filter ? ', _ducklake_internal_snapshot_id AS snap' : ''} ` +
        `FROM read_parquet(${pathList(g.items, ctx)}, hive_partitioning := false${encryptionArg(g.key)})) d` +
        `${g.filter ? ` WHERE d.snap <= ${S}` : ''}`,
    );
  }
  // Deletion vectors and inlined file deletions were read at open time: constants here, each file's
  // positions one string cast to BIGINT[] — bound again at every statement over the view, a list
  // literal binds one constant per position (10,000 positions: ≈ 35 ms a bind, the cast ≈ 4 ms).
  for (const f of files) {
    const positions = [
      ...(f.delete?.format === 'puffin' ? (ctx.dvPositions.get(f.id) ?? []) : []),
      ...f.inlinedDeletes,
    ];
    if (positions.length) {
      parts.push(`SELECT ${fileIndex.get(f.id)}::BIGINT AS fi, unnest('[${positions.join(', ')}]'::BIGINT[]) AS pos`);
    }
  }
  return parts.length ? parts.join(' UNION ALL ') : null;
}

function hasDeletes(files: DataFile[]): boolean {
  return files.some((f) => f.delete !== null || f.inlinedDeletes.length > 0);
}

/** Whether some rows of the file are hidden at S: deletes, or rows newer than S in a partial file. */
export function needsRowFilter(f: DataFile, snapshot: number): boolean {
  return f.delete !== null || f.inlinedDeletes.length > 0 || (f.partialMax !== null && f.partialMax > snapshot);
}

/**
 * The delete anti-join and the partial-file snapshot filter. An explicit ANTI JOIN, not NOT
 * EXISTS: the correlated form is planned as a delim join (an extra grouping and join per branch),
 * which costs a short query more than the deletes themselves.
 */
function rowFilter(table: LakeTable, files: DataFile[], ctx: TableSqlContext, snapCol: boolean): string {
  let out = '';
  const dels = deletesSql(files, ctx);
  // one file: its positions alone are the key (a single-column anti-join)
  const key = files.length === 1 ? 'd.pos = r.__ducklake_pos' : 'd.fi = r.__ducklake_fi AND d.pos = r.__ducklake_pos';
  if (dels) out += ` ANTI JOIN (${dels}) d ON ${key}`;
  const partial = files.flatMap((f, i) => (f.partialMax !== null && f.partialMax > ctx.snapshot ? [i] : []));
  if (partial.length && snapCol)
    out += ` WHERE (r.__ducklake_fi NOT IN (${partial.join(', ')}) OR r._snap <= ${ctx.snapshot})`;
  return out;
}

/** One field id's entry of read_parquet's `schema` option. */
export interface SchemaEntry {
  id: number;
  name: string;
  type: string;
  dflt: string | null;
}

/** Text that DuckDB's VARCHAR → MAP cast reads back unchanged inside single quotes. */
const PLAIN_VALUE = /^[\w(),.:-]+(?: [\w(),.:-]+)*$/;

/**
 * read_parquet's `schema` MAP. DuckDB binds the option again at every execution of a statement over the
 * view (read_parquet's bind data opts out of its statement cache), so its spelling is paid per statement:
 * one cast of a string constant binds in about half the time of `MAP {…}` (a `map`, two
 * `list_value` and a `struct_pack` per column, then folded). The same value either way; the literal form
 * is kept for any name, type or default the cast's text could read otherwise.
 */
export function schemaMap(entries: SchemaEntry[]): string {
  if (
    entries.every(
      (e) => PLAIN_VALUE.test(e.name) && PLAIN_VALUE.test(e.type) && (e.dflt === null || PLAIN_VALUE.test(e.dflt)),
    )
  ) {
    const q = (v: string) => `''${v}''`;
    const text = entries
      .map(
        (e) =>
          `${e.id}={name: ${q(e.name)}, type: ${q(e.type)}, default_value: ${e.dflt === null ? 'NULL' : q(e.dflt)}}`,
      )
      .join(', ');
    return `CAST('{${text}}' AS MAP(INTEGER, STRUCT("name" VARCHAR, "type" VARCHAR, default_value VARCHAR)))`;
  }
  const literal = (v: string | null) => (v === null ? 'NULL::VARCHAR' : lit(v));
  return `MAP {${entries.map((e) => `${e.id}: {name: ${lit(e.name)}, type: ${lit(e.type)}, default_value: ${literal(e.dflt)}}`).join(', ')}}`;
}

/** Branch for files written by DuckLake: columns by field id. */
function fieldIdBranch(
  table: LakeTable,
  files: DataFile[],
  shape: SrcNode[] | undefined,
  key: string | null,
  ctx: TableSqlContext,
  identity = false,
): string {
  const entries: SchemaEntry[] = [];
  const exprs: string[] = [];
  for (const cur of table.tree) {
    const src = shape ? shape.find((s) => s.id === cur.id) : cur;
    const declared = !src ? null : sameShape(cur, src) ? sqlType(cur) : shapeType(cur, src);
    if (declared === null) {
      exprs.push(`${defaultExpr(cur)} AS ${qi(cur.name)}`);
      continue;
    }
    const dflt = cur.kind === 'leaf' && cur.initialDefault !== null ? cur.initialDefault : null;
    entries.push({ id: cur.id, name: colAlias(cur), type: declared, dflt });
    const ref = `r.${colAlias(cur)}`;
    exprs.push(
      `${src && !sameShape(cur, src) ? convert(ref, cur, src) : `CAST(${ref} AS ${sqlType(cur)})`} AS ${qi(cur.name)}`,
    );
  }
  const needSnap = files.some((f) => f.partialMax !== null && f.partialMax > ctx.snapshot);
  const snap: SchemaEntry = { id: SNAPSHOT_FIELD_ID, name: '_snap', type: 'BIGINT', dflt: null };
  if (needSnap) entries.push(snap);
  if (entries.length === 0) entries.push(snap);
  if (identity) {
    entries.push({ id: ROW_ID_FIELD_ID, name: '_rid', type: 'BIGINT', dflt: null });
    exprs.push(identityExprs(files, 'r._rid'));
  }
  const filtered = hasDeletes(files) || needSnap;
  const read =
    `read_parquet(${pathList(files, ctx)}, schema := ${schemaMap(entries)}, hive_partitioning := false` +
    `${encryptionArg(key)})`;
  const from = filtered || identity ? `(SELECT *, ${VIRTUAL} FROM ${read}) r` : `${read} r`;
  return `SELECT ${exprs.join(', ')} FROM ${from}${filtered ? rowFilter(table, files, ctx, needSnap) : ''}`;
}

/** Source tree of a name-mapped column: children by their mapped source names. */
function mappedSource(entries: NameMapEntry[], entry: NameMapEntry, cur: ColNode): SrcNode {
  const kids = entries.filter((e) => e.parent === entry.ordinal);
  return {
    id: entry.targetFieldId,
    name: entry.sourceName,
    kind: cur.kind,
    children:
      cur.kind === 'struct'
        ? kids.map((k) => mappedSource(entries, k, cur.children.find((c) => c.id === k.targetFieldId) ?? cur))
        : cur.children.map((c, i) =>
            kids[i] ? mappedSource(entries, kids[i]!, c) : { id: c.id, name: c.name, kind: c.kind, children: [] },
          ),
  };
}

/** Branch for files read by name: ducklake_add_data_files (mapping) or legacy positional files. */
function nameBranch(
  table: LakeTable,
  files: DataFile[],
  entries: NameMapEntry[],
  key: string | null,
  ctx: TableSqlContext,
  identity = false,
): string {
  const exprs = table.tree.map((cur) => {
    const e = entries.find((x) => x.parent === null && x.targetFieldId === cur.id);
    if (!e) return `${defaultExpr(cur)} AS ${qi(cur.name)}`;
    if (e.isPartition) {
      const type = sqlType(cur);
      const cases = files.map(
        (f, i) => `WHEN ${i} THEN ${partitionValueSql(hivePartitions(f.path).get(e.sourceName), type)}`,
      );
      return `CASE r.__ducklake_fi ${cases.join(' ')} END AS ${qi(cur.name)}`;
    }
    return `${convert(`r.${qi(e.sourceName)}`, cur, mappedSource(entries, e, cur))} AS ${qi(cur.name)}`;
  });
  if (identity) exprs.push(identityExprs(files, 'NULL'));
  const filtered = hasDeletes(files);
  const read = `read_parquet(${pathList(files, ctx)}, hive_partitioning := false, union_by_name := true${encryptionArg(key)})`;
  const virtual = filtered || identity || entries.some((e) => e.parent === null && e.isPartition);
  const from = virtual ? `(SELECT *, ${VIRTUAL} FROM ${read}) r` : `${read} r`;
  return `SELECT ${exprs.join(', ')} FROM ${from}${filtered ? rowFilter(table, files, ctx, false) : ''}`;
}

/** Branch for one inlined data table: physical names are those of its schema version. */
function inlinedBranch(
  table: LakeTable,
  name: string,
  columns: ColNode[],
  ctx: TableSqlContext,
  identity = false,
): string {
  const exprs = table.tree.map((cur) => {
    const src = columns.find((c) => c.id === cur.id);
    return `${src ? convert(qi(src.name), cur, src) : defaultExpr(cur)} AS ${qi(cur.name)}`;
  });
  if (identity)
    exprs.push(
      `NULL::BIGINT AS __fdl_file, NULL::BIGINT AS __fdl_pos, ${lit(name)} AS __fdl_inlined, row_id AS __fdl_rowid`,
    );
  const S = ctx.snapshot;
  return (
    `SELECT ${exprs.join(', ')} FROM ${qi(ctx.metaAlias)}.main.${qi(name)} ` +
    `WHERE begin_snapshot <= ${S} AND (end_snapshot IS NULL OR end_snapshot > ${S})`
  );
}

/** IDENTITY_COLUMNS of a file row: the embedded row id when the file has one, else row_id_start + position. */
function identityExprs(files: DataFile[], embedded: string): string {
  const at = (xs: (number | null)[]) => `[${xs.map((x) => x ?? 'NULL').join(', ')}][r.__ducklake_fi::BIGINT + 1]`;
  return (
    `${at(files.map((f) => f.id))}::BIGINT AS __fdl_file, r.__ducklake_pos::BIGINT AS __fdl_pos, NULL::VARCHAR AS __fdl_inlined, ` +
    `coalesce(${embedded}, ${at(files.map((f) => f.rowIdStart))} + r.__ducklake_pos)::BIGINT AS __fdl_rowid`
  );
}

/** Top-level names of a legacy file become a synthetic name map: file column i ↔ table column i. */
function positionalMap(table: LakeTable, shape: SrcNode[]): NameMapEntry[] {
  return shape.slice(0, table.tree.length).map((s, i) => ({
    ordinal: i,
    parent: null,
    sourceName: s.name,
    targetFieldId: table.tree[i]!.id,
    isPartition: false,
  }));
}

/**
 * `only`: the data files to read (pruned by statistics for one query); absent: every file.
 * Inlined rows live in the catalog and are always read.
 */
export function tableSql(table: LakeTable, ctx: TableSqlContext, only?: ReadonlySet<number>, identity = false): string {
  const branches: string[] = [];
  const fieldGroups = new Map<string, { key: string | null; shape: SrcNode[] | undefined; files: DataFile[] }>();
  const nameGroups = new Map<string, { key: string | null; entries: NameMapEntry[]; files: DataFile[] }>();
  // A few files with deletes are read one by one (single-key anti-join); many share one read.
  const filtered = table.dataFiles.filter((f) => (!only || only.has(f.id)) && needsRowFilter(f, ctx.snapshot));
  const apart = filtered.length <= SEPARATE_DELETE_READS;
  for (const f of table.dataFiles) {
    if (only && !only.has(f.id)) continue;
    const shape = ctx.shapes.get(f.id);
    if (f.mappingId !== null || (shape && shape.some((s) => s.id === null))) {
      const g = f.mappingId !== null ? `m${f.mappingId}|${f.key ?? ''}|${needsRowFilter(f, ctx.snapshot)}` : `p${f.id}`;
      const entries = f.mappingId !== null ? ctx.nameMaps.get(f.mappingId)! : positionalMap(table, shape!);
      if (!nameGroups.has(g)) nameGroups.set(g, { key: f.key, entries, files: [] });
      nameGroups.get(g)!.files.push(f);
      continue;
    }
    // Files whose nested shape equals today's share one read_parquet per key.
    const uniform =
      !shape ||
      table.tree.every((c) => {
        const s = shape.find((x) => x.id === c.id);
        return !s || sameShape(c, s);
      });
    // Files that need no row filter share a plain read; the others pay for the anti-join.
    const rowFiltered = needsRowFilter(f, ctx.snapshot);
    const g = `${rowFiltered ? (apart ? `f${f.id}` : 'f') : 'p'}|${f.key ?? ''}|${uniform ? '' : JSON.stringify(shape)}`;
    if (!fieldGroups.has(g)) fieldGroups.set(g, { key: f.key, shape: uniform ? undefined : shape, files: [] });
    fieldGroups.get(g)!.files.push(f);
  }
  for (const g of fieldGroups.values()) branches.push(fieldIdBranch(table, g.files, g.shape, g.key, ctx, identity));
  for (const g of nameGroups.values()) branches.push(nameBranch(table, g.files, g.entries, g.key, ctx, identity));
  for (const inl of table.inlined) branches.push(inlinedBranch(table, inl.name, inl.columns, ctx, identity));
  if (branches.length === 0) {
    const ids = identity
      ? ', NULL::BIGINT AS __fdl_file, NULL::BIGINT AS __fdl_pos, NULL::VARCHAR AS __fdl_inlined, NULL::BIGINT AS __fdl_rowid'
      : '';
    return `SELECT ${table.tree.map((c) => `CAST(NULL AS ${sqlType(c)}) AS ${qi(c.name)}`).join(', ')}${ids} WHERE false`;
  }
  return branches.join('\nUNION ALL\n');
}
