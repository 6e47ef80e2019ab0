/**
 * files.json (spec Part 3): what a version's frozen snapshot reads, with sizes and sha256 of every
 * data and delete file; written by every version writer, read back for the hashes a child carries.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { lit, qi } from './coltypes.js';
import { rows as rowsOf } from '../lake/sql.js';

/** path → sha256 from a files.json, data and delete files (ours carry both; older ones may not). */
export function parentHashes(filesJson: Buffer | null): [string, string][] {
  if (!filesJson) return [];
  try {
    const j = JSON.parse(filesJson.toString('utf8')) as {
      tables?: Record<string, { files?: Record<string, unknown>[] }>;
    };
    const out: [string, string][] = [];
    for (const t of Object.values(j.tables ?? {})) {
      for (const f of t.files ?? []) {
        if (typeof f.path === 'string' && typeof f.sha256 === 'string') out.push([f.path, f.sha256]);
        if (typeof f.delete_file === 'string' && typeof f.delete_file_sha256 === 'string')
          out.push([f.delete_file, f.delete_file_sha256]);
      }
    }
    return out;
  } catch {
    return [];
  }
}

/** files.json (spec Part 3, the fixtures' shape): live files per table at snapshot S, paths relative to data_dir. */
export async function buildFilesJson(
  conn: DuckDBConnection,
  alias: string,
  S: number,
  sha256Of: (rel: string) => Promise<string | undefined>,
): Promise<unknown> {
  const m = qi(alias);
  const live = (a: string) => {
    const p = a ? `${a}.` : '';
    return `${p}begin_snapshot <= ${S} AND (${p}end_snapshot IS NULL OR ${p}end_snapshot > ${S})`;
  };
  const r = await rowsOf(
    conn,
    `
    SELECT t.table_id, s.schema_name, t.table_name, coalesce(s.path, '') || coalesce(t.path, '') AS dir, d.data_file_id, d.path, d.file_size_bytes, d.record_count,
           x.path AS del, x.delete_count, x.format AS del_format, x.file_size_bytes AS del_size
    FROM ${m}.ducklake_table t JOIN ${m}.ducklake_schema s ON s.schema_id = t.schema_id AND ${live('s')}
    LEFT JOIN ${m}.ducklake_data_file d ON d.table_id = t.table_id AND ${live('d')}
    LEFT JOIN ${m}.ducklake_delete_file x ON x.data_file_id = d.data_file_id AND ${live('x')}
    WHERE ${live('t')} ORDER BY s.schema_name, t.table_name, d.data_file_id`,
  );
  const existing = new Set(
    (
      await rowsOf(
        conn,
        `SELECT table_name FROM duckdb_tables() WHERE database_name = ${lit(alias)} AND schema_name = 'main' AND table_name LIKE 'ducklake_inlined_delete_%'`,
      )
    ).map((x) => String(x.table_name)),
  );
  const tables: Record<string, { files: unknown[]; inlined_rows?: number; inlined_file_deletions?: number }> = {};
  const liveFiles = new Map<string, Set<string>>();
  const nameOf = new Map<string, string>();
  for (const row of r) {
    const name = `${String(row.schema_name)}.${String(row.table_name)}`;
    nameOf.set(String(row.table_id), name);
    const t = (tables[name] ??= { files: [] });
    if (row.path === null) continue;
    (
      liveFiles.get(String(row.table_id)) ?? liveFiles.set(String(row.table_id), new Set()).get(String(row.table_id))!
    ).add(String(row.data_file_id));
    const dir = String(row.dir);
    const rel = dir + String(row.path);
    const sha256 = await sha256Of(rel);
    const delSha256 = row.del !== null ? await sha256Of(dir + String(row.del)) : undefined;
    t.files.push({
      path: rel,
      size: Number(row.file_size_bytes),
      rows: Number(row.record_count),
      ...(sha256 ? { sha256 } : {}),
      ...(row.del !== null
        ? {
            delete_file: dir + String(row.del),
            delete_file_size: Number(row.del_size),
            ...(delSha256 ? { delete_file_sha256: delSha256 } : {}),
            ...(row.delete_count !== null ? { delete_count: Number(row.delete_count) } : {}),
            ...(row.del_format !== null && row.del_format !== 'parquet'
              ? { delete_format: String(row.del_format) }
              : {}),
          }
        : {}),
    });
  }
  // Rows inlined in the catalog (ducklake_inlined_data_<table>_<schema version>), live at S, per table.
  const inlined = await rowsOf(conn, `SELECT table_id, table_name FROM ${m}.ducklake_inlined_data_tables`);
  for (const it of inlined) {
    const name = nameOf.get(String(it.table_id));
    if (!name) continue;
    const c = await rowsOf(conn, `SELECT count(*) AS n FROM ${m}.main.${qi(String(it.table_name))} WHERE ${live('')}`);
    const n = Number(c[0]?.n ?? 0);
    if (n > 0) tables[name]!.inlined_rows = (tables[name]!.inlined_rows ?? 0) + n;
  }
  // Inlined file deletions (deleted rows of Parquet files kept in the catalog), counted per table.
  for (const [tid, name] of nameOf) {
    const ids = [...(liveFiles.get(tid) ?? [])];
    if (!existing.has(`ducklake_inlined_delete_${tid}`) || ids.length === 0) continue;
    const c = await rowsOf(
      conn,
      `SELECT count(*) AS n FROM ${m}.main.${qi(`ducklake_inlined_delete_${tid}`)} WHERE begin_snapshot <= ${S} AND file_id IN (${ids.join(', ')})`,
    );
    const n = Number(c[0]?.n ?? 0);
    if (n > 0) tables[name]!.inlined_file_deletions = n;
  }
  return { snapshot_id: S, tables };
}
