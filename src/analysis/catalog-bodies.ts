/**
 * The SQL a version's own catalog holds — its DuckLake views and macros — judged as a client's
 * statement is (analysis/containment.ts), before the version's database is built. A session that
 * reads such a view runs its SQL, and nothing in the session's own text names what the view reads:
 * a view planted by anyone who can write the store (`read_parquet` over the data folder, another
 * version's metadata database, `current_setting`) would read past grants, hashes and signatures.
 * A body may read the version's own tables, views and macros and call what a client may call.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { analyze } from './analysis.js';
import { admit, allowedFunctions, refuseInternalNames, type AdmissionContext } from './containment.js';
import { COMPAT_DB } from '../pg/catalog/names.js';
import type { LakeCatalog } from '../lake/model.js';
import { isSqlError, SQLSTATE } from '../errors.js';

/** The judge of `catalog`'s bodies for its database `versionDb`; `conn` parses (a session connection). */
export function catalogBodyJudge(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  versionDb: string,
): (sql: string, schema: string) => Promise<void> {
  const db = versionDb.toLowerCase();
  const relations = new Set([...catalog.tables, ...catalog.views].map((r) => `${r.schema}.${r.name}`.toLowerCase()));
  const macros = new Set(catalog.macros.map((m) => m.name.toLowerCase()));
  return async (sql, schema) => {
    refuseInternalNames(sql);
    const ctx: AdmissionContext = {
      functions: await allowedFunctions(conn),
      versionDb,
      searchSchemas: [schema.toLowerCase(), 'main'],
      pinnedDbs: [],
      compatDb: COMPAT_DB,
      hasRelation: (d, s, t) => d === db && relations.has(`${s}.${t}`),
      definesFunction: (d, name) => d === db && macros.has(name),
    };
    try {
      admit(await analyze(conn, sql), ctx);
    } catch (e) {
      // A name the catalog no longer has is a dangling view, as DuckLake's own: created, failing when read.
      if (isSqlError(e) && e.sqlstate === SQLSTATE.undefinedTable) return;
      throw e;
    }
  };
}
