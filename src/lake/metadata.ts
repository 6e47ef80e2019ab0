/**
 * openCatalog: attach a frozen DuckLake catalog READ_ONLY and read everything needed to serve its
 * newest snapshot in a fixed number of queries (independent of the number of files).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import type { DataFile, InlinedTable, LakeCatalog, LakeTable, LakeView, NameMapEntry } from './model.js';
import { joinRelative, type PathPart } from './paths.js';
import { lit, num, optNum, optStr, qi, rows, str, visibleAt, type Row } from './sql.js';
import { checkCatalogCeilings } from './catalog-ceilings.js';
import { sqlType, type ColNode } from './types.js';
import { columnHistory, nestedEvolved, stableTypes, treeAt } from './column-history.js';
import { buildMacros } from './catalog-macros.js';

/** Catalog versions with the 1.0 table layout (0.4 differs only in the version string). */
export const SUPPORTED_VERSIONS = ['1.0', '0.4'];

const visible = visibleAt;

function unquoteList(aliases: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"]|"")*)"/g;
  for (let m = re.exec(aliases); m; m = re.exec(aliases)) out.push(m[1]!.replaceAll('""', '"'));
  return out;
}

export async function openCatalog(
  conn: DuckDBConnection,
  catalogFile: string,
  metaAlias: string,
): Promise<LakeCatalog> {
  await conn.run(`ATTACH ${lit(catalogFile)} AS ${qi(metaAlias)} (READ_ONLY)`);
  try {
    return await readCatalog(conn, metaAlias);
  } catch (e) {
    await conn.run(`DETACH ${qi(metaAlias)}`).catch(() => undefined);
    throw e;
  }
}

async function readCatalog(conn: DuckDBConnection, metaAlias: string): Promise<LakeCatalog> {
  const m = qi(metaAlias);
  const q = (sql: string): Promise<Row[]> => rows(conn, sql);

  const settings = new Map<string, string>();
  for (const r of await q(`SELECT key, value FROM ${m}.ducklake_metadata WHERE scope IS NULL`)) {
    settings.set(str(r.key), str(r.value));
  }
  const formatVersion = settings.get('version') ?? '(none)';
  if (!SUPPORTED_VERSIONS.includes(formatVersion)) {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `DuckLake catalog version ${formatVersion} is not supported (supported: ${SUPPORTED_VERSIONS.join(', ')})`,
    );
  }
  const encrypted = settings.get('encrypted') === 'true';
  const [snap] = await q(`SELECT max(snapshot_id) AS s FROM ${m}.ducklake_snapshot`);
  const S = num(snap?.s);
  if (!Number.isFinite(S)) throw new SqlError(SQLSTATE.dataCorrupted, 'DuckLake catalog has no snapshot');
  await checkCatalogCeilings(conn, metaAlias, S);

  // The handful of metadata queries: objects, column history, files, inlined tables, maps, views.
  const [
    schemaRows,
    tableRows,
    columnRows,
    tagRows,
    colTagRows,
    fileRows,
    inlinedRows,
    physical,
    mapRows,
    viewRows,
    macroRows,
    paramRows,
    statRows,
    partRows,
  ] = await Promise.all([
    q(
      `SELECT schema_id, schema_name, path, path_is_relative FROM ${m}.ducklake_schema WHERE ${visible(S)} ORDER BY schema_id`,
    ),
    q(
      `SELECT table_id, schema_id, table_name, path, path_is_relative FROM ${m}.ducklake_table WHERE ${visible(S)} ORDER BY table_id`,
    ),
    q(`SELECT table_id, column_id, begin_snapshot, end_snapshot, column_order, column_name, column_type, initial_default, parent_column
       FROM ${m}.ducklake_column WHERE table_id IN (SELECT table_id FROM ${m}.ducklake_table WHERE ${visible(S)})`),
    q(`SELECT object_id, value FROM ${m}.ducklake_tag WHERE key = 'comment' AND ${visible(S)}`),
    q(`SELECT table_id, column_id, value FROM ${m}.ducklake_column_tag WHERE key = 'comment' AND ${visible(S)}`),
    q(`SELECT d.data_file_id, d.table_id, d.path, d.path_is_relative, d.file_format, d.file_size_bytes, d.record_count, d.row_id_start,
              d.begin_snapshot, d.partial_max, d.mapping_id, d.encryption_key,
              x.path AS del_path, x.path_is_relative AS del_rel, x.format AS del_format, x.file_size_bytes AS del_size,
              x.encryption_key AS del_key, x.partial_max AS del_partial_max
       FROM ${m}.ducklake_data_file d
       LEFT JOIN (SELECT * FROM ${m}.ducklake_delete_file WHERE ${visible(S)}) x ON x.data_file_id = d.data_file_id
       WHERE ${visible(S, 'd.')} ORDER BY d.table_id, d.data_file_id`),
    q(`SELECT i.table_id, i.table_name, i.schema_version, v.begin_snapshot AS version_begin,
              (SELECT min(t.begin_snapshot) FROM ${m}.ducklake_table t WHERE t.table_id = i.table_id) AS table_begin
       FROM ${m}.ducklake_inlined_data_tables i
       LEFT JOIN ${m}.ducklake_schema_versions v ON v.table_id = i.table_id AND v.schema_version = i.schema_version
       ORDER BY i.table_id, i.schema_version`),
    q(
      `SELECT table_name FROM duckdb_tables() WHERE database_name = ${lit(metaAlias)} AND table_name LIKE 'ducklake_inlined_%'`,
    ),
    q(`SELECT n.mapping_id, n.column_id, n.source_name, n.target_field_id, n.parent_column, n.is_partition, c.type
       FROM ${m}.ducklake_name_mapping n JOIN ${m}.ducklake_column_mapping c USING (mapping_id)
       ORDER BY n.mapping_id, n.column_id`),
    q(
      `SELECT view_id, schema_id, view_name, dialect, sql, column_aliases FROM ${m}.ducklake_view WHERE ${visible(S)} ORDER BY view_id`,
    ),
    q(`SELECT mc.schema_id, mc.macro_id, mc.macro_name, i.impl_id, i.dialect, i.sql, i.type
       FROM ${m}.ducklake_macro mc JOIN ${m}.ducklake_macro_impl i USING (macro_id)
       WHERE ${visible(S, 'mc.')} ORDER BY mc.macro_id, i.impl_id`),
    q(`SELECT macro_id, impl_id, column_id, parameter_name, parameter_type, default_value, default_value_type
       FROM ${m}.ducklake_macro_parameters ORDER BY macro_id, impl_id, column_id`),
    // Pruning statistics of the visible files (one row per file and column; a few per file for partitions).
    q(`SELECT s.data_file_id, s.column_id, s.null_count, s.value_count, s.min_value, s.max_value, s.contains_nan
       FROM ${m}.ducklake_file_column_stats s
       WHERE s.data_file_id IN (SELECT data_file_id FROM ${m}.ducklake_data_file WHERE ${visible(S)})`),
    q(`SELECT v.data_file_id, c.column_id, c.transform, v.partition_value
       FROM ${m}.ducklake_file_partition_value v
       JOIN ${m}.ducklake_data_file d ON d.data_file_id = v.data_file_id
       JOIN ${m}.ducklake_partition_column c
         ON c.partition_id = d.partition_id AND c.table_id = d.table_id AND c.partition_key_index = v.partition_key_index
       WHERE ${visible(S, 'd.')}`),
  ]);

  const comments = new Map<number, string>(tagRows.map((r) => [num(r.object_id), str(r.value)]));
  const colComments = new Map<string, string>(
    colTagRows.map((r) => [`${num(r.table_id)}:${num(r.column_id)}`, str(r.value)]),
  );
  const existing = new Set(physical.map((r) => str(r.table_name)));

  const schemas = new Map<number, { name: string; path: string | null; relative: boolean | null }>();
  for (const r of schemaRows) {
    schemas.set(num(r.schema_id), {
      name: str(r.schema_name),
      path: optStr(r.path),
      relative: r.path_is_relative as boolean | null,
    });
  }

  const history = columnHistory(columnRows);

  const nameMaps = new Map<number, NameMapEntry[]>();
  for (const r of mapRows) {
    if (str(r.type) !== 'map_by_name') {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `DuckLake column mapping ${num(r.mapping_id)}: unsupported mapping type "${str(r.type)}"`,
      );
    }
    const id = num(r.mapping_id);
    nameMaps.set(id, [
      ...(nameMaps.get(id) ?? []),
      {
        ordinal: num(r.column_id),
        parent: optNum(r.parent_column),
        sourceName: str(r.source_name),
        targetFieldId: num(r.target_field_id),
        isPartition: r.is_partition === true,
      },
    ]);
  }

  const tables: LakeTable[] = [];
  const byId = new Map<number, LakeTable>();
  const tableBase = new Map<number, PathPart[]>(); // schema.path + table.path, prefixed to file paths
  for (const r of tableRows) {
    const schema = schemas.get(num(r.schema_id));
    if (!schema) continue; // table of a dropped schema: not visible
    const tableId = num(r.table_id);
    const label = `${qi(schema.name)}.${qi(str(r.table_name))}`;
    const hist = history.get(tableId) ?? [];
    const tree = treeAt(hist, S, `table ${label}`);
    if (tree.length === 0) throw new SqlError(SQLSTATE.dataCorrupted, `table ${label} has no columns`);
    refuseVariant(tree, label);
    const table: LakeTable = {
      schema: schema.name,
      name: str(r.table_name),
      comment: comments.get(tableId) ?? null,
      columns: tree.map((c) => ({
        name: c.name,
        type: sqlType(c, true),
        comment: colComments.get(`${tableId}:${c.id}`) ?? null,
      })),
      files: [],
      tableId,
      tree,
      nestedEvolved: nestedEvolved(hist),
      dataFiles: [],
      inlined: [],
      stableTypes: stableTypes(hist),
    };
    tableBase.set(tableId, [
      { path: schema.path, relative: schema.relative },
      { path: optStr(r.path), relative: r.path_is_relative as boolean | null },
    ]);
    tables.push(table);
    byId.set(tableId, table);
  }

  for (const r of fileRows) {
    const table = byId.get(num(r.table_id));
    if (!table) continue;
    const label = `${qi(table.schema)}.${qi(table.name)}`;
    const base = tableBase.get(table.tableId)!;
    const format = str(r.file_format || 'parquet');
    if (format !== 'parquet') {
      throw new SqlError(SQLSTATE.featureNotSupported, `table ${label}: data file format "${format}" is not supported`);
    }
    const path = joinRelative(
      [...base, { path: str(r.path), relative: r.path_is_relative as boolean | null }],
      label,
      'data',
    );
    const key = optStr(r.encryption_key);
    if (encrypted && key === null) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `table ${label}: catalog is encrypted but data file ${path} has no encryption key`,
      );
    }
    const file: DataFile = {
      id: num(r.data_file_id),
      path,
      rowIdStart: optNum(r.row_id_start),
      beginSnapshot: num(r.begin_snapshot),
      partialMax: optNum(r.partial_max),
      mappingId: optNum(r.mapping_id),
      key,
      delete: null,
      inlinedDeletes: [],
      size: num(r.file_size_bytes),
      recordCount: optNum(r.record_count),
      stats: new Map(),
      partitions: [],
    };
    if (file.mappingId !== null && !nameMaps.has(file.mappingId)) {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `table ${label}: data file ${path} names missing column mapping ${file.mappingId}`,
      );
    }
    table.files.push({ path, size: num(r.file_size_bytes), kind: 'data' });
    if (r.del_path !== null && r.del_path !== undefined) {
      const delFormat = str(r.del_format || 'parquet');
      if (delFormat !== 'parquet' && delFormat !== 'puffin') {
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `table ${label}: delete file format "${delFormat}" is not supported`,
        );
      }
      if (file.delete) {
        // The extension would scan the data file twice; never guess which delete file is right.
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `table ${label}: data file ${path} has two visible delete files`,
        );
      }
      const delPath = joinRelative(
        [...base, { path: str(r.del_path), relative: r.del_rel as boolean | null }],
        label,
        'delete',
      );
      const delKey = optStr(r.del_key);
      if (encrypted && delKey === null && delFormat === 'parquet') {
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `table ${label}: catalog is encrypted but delete file ${delPath} has no encryption key`,
        );
      }
      file.delete = { path: delPath, format: delFormat, key: delKey, partialMax: optNum(r.del_partial_max) };
      table.files.push({ path: delPath, size: num(r.del_size), kind: 'delete' });
    }
    table.dataFiles.push(file);
  }

  const fileById = new Map(tables.flatMap((t) => t.dataFiles.map((f) => [f.id, f] as const)));
  for (const r of statRows) {
    fileById.get(num(r.data_file_id))?.stats.set(num(r.column_id), {
      min: optStr(r.min_value),
      max: optStr(r.max_value),
      nullCount: optNum(r.null_count),
      valueCount: optNum(r.value_count),
      containsNan: r.contains_nan === null || r.contains_nan === undefined ? null : r.contains_nan === true,
    });
  }
  for (const r of partRows) {
    fileById
      .get(num(r.data_file_id))
      ?.partitions.push({ columnId: num(r.column_id), transform: str(r.transform), value: optStr(r.partition_value) });
  }

  // Inlined file deletions (≤ inlining-limit rows per DELETE): few rows, read once into constants.
  const deleteTables = tables.filter((t) => existing.has(`ducklake_inlined_delete_${t.tableId}`));
  if (deleteTables.length) {
    const union = deleteTables.map(
      (t) =>
        `SELECT ${t.tableId} AS table_id, file_id, row_id FROM ${m}.main.${qi(`ducklake_inlined_delete_${t.tableId}`)} WHERE begin_snapshot <= ${S}`,
    );
    const files = new Map(tables.flatMap((t) => t.dataFiles.map((f) => [`${t.tableId}:${f.id}`, f] as const)));
    for (const r of await q(union.join(' UNION ALL ') + ' ORDER BY ALL')) {
      files.get(`${num(r.table_id)}:${num(r.file_id)}`)?.inlinedDeletes.push(num(r.row_id));
    }
  }

  for (const r of inlinedRows) {
    const table = byId.get(num(r.table_id));
    const name = str(r.table_name);
    if (!table || !existing.has(name)) continue;
    const at = optNum(r.version_begin) ?? num(r.table_begin);
    const inl: InlinedTable = { name, columns: treeAt(history.get(table.tableId) ?? [], at, `inlined table ${name}`) };
    table.inlined.push(inl);
  }

  const views: LakeView[] = [];
  for (const r of viewRows) {
    const schema = schemas.get(num(r.schema_id));
    if (!schema) continue;
    const dialect = str(r.dialect || 'duckdb');
    if (dialect !== 'duckdb') {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `view ${qi(schema.name)}.${qi(str(r.view_name))}: SQL dialect "${dialect}" is not supported`,
      );
    }
    views.push({
      schema: schema.name,
      name: str(r.view_name),
      sql: str(r.sql),
      aliases: unquoteList(str(r.column_aliases)),
      comment: comments.get(num(r.view_id)) ?? null,
    });
  }

  const macros = buildMacros(macroRows, paramRows, schemas);
  return {
    metaAlias,
    formatVersion,
    snapshotId: S,
    encrypted,
    schemas: [...schemas.entries()].map(([id, s]) => ({ name: s.name, comment: comments.get(id) ?? null })),
    tables,
    views,
    macros,
    nameMaps,
  };
}

/**
 * A VARIANT column (a store writer's doing: DuckLake lets one be published) is refused where the
 * version is opened: DuckDB 1.5.6 crashes the process or invalidates its instance in list and variant
 * functions over VARIANT values, which admission keeps from a client's text (analysis/containment.ts)
 * but not from a table's rows.
 */
function refuseVariant(tree: ColNode[], table: string, path = ''): void {
  for (const c of tree) {
    const name = path ? `${path}.${c.name}` : c.name;
    if (/^variant$/i.test(c.leafType.trim()))
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `column ${name} of table ${table} has type VARIANT, which fdl-gateway does not serve`,
        undefined,
        'Publish the column as JSON or VARCHAR instead (DuckDB 1.5 fails on VARIANT values in list functions).',
      );
    refuseVariant(c.children, table, name);
  }
}
