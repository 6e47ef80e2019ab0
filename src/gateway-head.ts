/**
 * What HEAD of a repository holds, for the status page: dataset.json's title, description and
 * licence, and every table and view with its columns and descriptions.
 */
import type { Engines } from './engine/engines.js';
import type { HeadDescription } from './gateway-config.js';
import type { Versions } from './versions/versions.js';

/** The status page reads as no configured user can be named (NUL never survives a startup packet). */
const STATUS_USER = '\u0000status';

export async function describeHead(versions: Versions, engines: Engines, repoName: string): Promise<HeadDescription> {
  const lease = await versions.acquire(repoName, '', STATUS_USER);
  try {
    const d = await versions.systemTable('dataset', {
      repo: repoName,
      user: STATUS_USER,
      versionId: lease.versionId,
    });
    const [title, description, license, homepage] = (d.rows[0] ?? []) as (string | null)[];
    const conn = await (await engines.for(repoName)).connect();
    try {
      const db = lease.dbName;
      const rels = (
        await conn.runAndReadAll(
          // a lake table is a DuckDB view, or a DuckDB table when it is small (versions/native-tables.ts)
          `SELECT schema_name, view_name, comment FROM duckdb_views() WHERE database_name = $1 AND NOT internal
           UNION ALL SELECT schema_name, table_name, comment FROM duckdb_tables() WHERE database_name = $1 AND NOT internal
           ORDER BY 1, 2`,
          [db],
        )
      ).getRows();
      const cols = (
        await conn.runAndReadAll(
          'SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns() WHERE database_name = $1 ORDER BY schema_name, table_name, column_index',
          [db],
        )
      ).getRows();
      const tables = rels.map(([schema, name, comment]) => ({
        schema: String(schema),
        name: String(name),
        description: comment === null ? null : String(comment),
        columns: cols
          .filter((c) => c[0] === schema && c[1] === name)
          .map(([, , column, type, comment]) => ({
            name: String(column),
            type: String(type),
            description: comment === null ? null : String(comment),
          })),
      }));
      return {
        versionId: lease.versionId,
        title: title ?? null,
        description: description ?? null,
        license: license ?? null,
        homepage: homepage ?? null,
        tables,
      };
    } finally {
      conn.disconnectSync();
    }
  } finally {
    lease.release();
  }
}
