/**
 * File pruning from catalog statistics, with DuckDB's own optimizer as the judge.
 *
 * For every data file of every table, a two- or three-row DuckDB table holds the file's column
 * minimum, maximum and (when the file may have NULLs) a NULL: its column statistics are then exactly
 * the file's catalog statistics. Each table becomes a view that is the UNION ALL of its files' rows,
 * DuckLake views and macros are recreated over them, and the user's statement is EXPLAINed there:
 * DuckDB pushes the statement's filters into every branch (through joins, CTEs, subqueries, views)
 * and replaces a branch whose statistics cannot satisfy them by an empty result. The files whose
 * table is still scanned in the plan are the ones the statement needs; the others hold no row that
 * can reach the result (their values lie within the same statistics), so leaving them out never
 * changes an answer.
 *
 * A column whose statistics cannot be trusted (type changed since the file was written, NaN,
 * missing, a type outside the allowlist) is projected through an expression DuckDB knows nothing
 * about, so no filter on it prunes anything.
 */
import type { DuckDBConnection, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { ColumnStats, DataFile, LakeCatalog, LakeTable } from './model.js';
import { lit, qi, rows, str } from './sql.js';
import { type ColNode, sqlType } from './types.js';
import { createViews } from './views.js';
import { runOneCreate } from './one-statement.js';
import { counted } from '../stages.js';
import { degraded, firstLine } from '../degraded.js';

/** Schema of the per-file statistics tables inside the pruning database. */
const FILES_SCHEMA = '__fdl_files';

/** Types whose catalog min/max text casts back to the value order DuckDB compares by. */
const ORDERED =
  /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|DATE|TIME|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE|VARCHAR|UUID)$/;

/** A value DuckDB has no statistics for: filters on it prune nothing. */
const unknown = (type: string) => `TRY_CAST(CAST(random() AS VARCHAR) AS ${type})`;

export const fileTableName = (tableId: number, fileId: number) => `t${tableId}_f${fileId}`;

/** What a file's statistics say about one column, or null when they cannot be used. */
export interface Bounds {
  min: string | null;
  max: string | null;
  /** Some rows may be NULL. */
  nulls: boolean;
}

/** The bounds of column `col` in file `f`, or null (unknown). */
export function columnBounds(table: LakeTable, f: DataFile, col: ColNode): Bounds | null {
  if (col.kind !== 'leaf' || !ORDERED.test(col.leafType) || !table.stableTypes.has(col.id)) return null;
  const s: ColumnStats | undefined = f.stats.get(col.id);
  if (s) {
    const float = col.leafType === 'FLOAT' || col.leafType === 'DOUBLE';
    if (float && s.containsNan !== false) return identityBounds(f, col);
    // timestamptz text without an offset would be read in the session's time zone
    if (
      col.leafType === 'TIMESTAMP WITH TIME ZONE' &&
      ![s.min, s.max].every((v) => v !== null && /[+-]\d\d(:?\d\d)?$/.test(v))
    )
      return identityBounds(f, col);
    const nulls = s.nullCount === null || s.nullCount > 0;
    if (s.min !== null && s.max !== null) return { min: s.min, max: s.max, nulls };
    // no value statistics: only an all-NULL file is known
    if (
      s.min === null &&
      s.max === null &&
      s.nullCount !== null &&
      f.recordCount !== null &&
      s.nullCount >= f.recordCount
    ) {
      return { min: null, max: null, nulls: true };
    }
  }
  return identityBounds(f, col);
}

/** An identity partition value fixes the column for the whole file. */
function identityBounds(f: DataFile, col: ColNode): Bounds | null {
  if (col.leafType === 'FLOAT' || col.leafType === 'DOUBLE' || col.leafType === 'TIMESTAMP WITH TIME ZONE') return null;
  const p = f.partitions.find((x) => x.columnId === col.id && x.transform.toLowerCase() === 'identity');
  if (!p || p.value === null) return null;
  return { min: p.value, max: p.value, nulls: false };
}

/** CREATE TABLE … AS the file's bounds; unknown columns hold NULL (their view expression ignores it). */
function fileTableSql(db: string, table: LakeTable, f: DataFile): { sql: string; known: Set<number> } {
  const known = new Set<number>();
  const cols = table.tree.map((c) => {
    const b = columnBounds(table, f, c);
    if (b) known.add(c.id);
    return { c, b, type: sqlType(c) };
  });
  const value = (type: string, v: string | null) => `CAST(${lit(v)} AS ${type})`;
  const row = (pick: (b: Bounds) => string | null) =>
    `SELECT ${cols.map(({ c, b, type }) => `${b ? value(type, pick(b)) : `CAST(NULL AS ${type})`} AS c${c.id}`).join(', ')}`;
  const rowsSql = [row((b) => b.min), row((b) => b.max)];
  if (cols.some(({ b }) => !b || b.nulls)) {
    rowsSql.push(row(() => null)); // a NULL row only where a column may be NULL: IS NULL prunes the rest
  }
  // A column that is never NULL must not see the NULL row: its min fills that slot instead.
  const nullRowFix = cols.map(({ c, b }) =>
    b && !b.nulls && b.min !== null ? `COALESCE(c${c.id}, (SELECT min(c${c.id}) FROM r)) AS c${c.id}` : `c${c.id}`,
  );
  const sql =
    `CREATE TABLE ${qi(db)}.${FILES_SCHEMA}.${qi(fileTableName(table.tableId, f.id))} AS ` +
    `WITH r AS (${rowsSql.join(' UNION ALL ')}) SELECT ${nullRowFix.join(', ')} FROM r`;
  return { sql, known };
}

function tableViewSql(db: string, table: LakeTable, branches: { file: DataFile; known: Set<number> }[]): string {
  if (branches.length === 0) {
    return `SELECT ${table.tree.map((c) => `CAST(NULL AS ${sqlType(c)}) AS ${qi(c.name)}`).join(', ')} WHERE false`;
  }
  return branches
    .map(({ file, known }) => {
      const exprs = table.tree.map((c) => `${known.has(c.id) ? `c${c.id}` : unknown(sqlType(c))} AS ${qi(c.name)}`);
      return `SELECT ${exprs.join(', ')} FROM ${qi(db)}.${FILES_SCHEMA}.${qi(fileTableName(table.tableId, file.id))}`;
    })
    .join(' UNION ALL ');
}

/** Fallback for a table whose statistics view cannot be built: one scan standing for every file. */
function opaqueViewSql(db: string, table: LakeTable): string {
  const exprs = table.tree.map((c) => `${unknown(sqlType(c))} AS ${qi(c.name)}`);
  return `SELECT ${exprs.join(', ')} FROM ${qi(db)}.${FILES_SCHEMA}.${qi(`t${table.tableId}_all`)}`;
}

/** A parameter value bound to the statement being judged. */
export interface BoundValue {
  value: DuckDBValue | null;
  type?: DuckDBType;
}

/** Data file ids a statement needs, per table id; a table absent from the map is not read at all. */
export type Survivors = Map<number, Set<number>>;

/**
 * The pruning database of one version. Build once (a fixed number of statements per file), then
 * `survivors(sql)` costs one EXPLAIN.
 */
export class PruneIndex {
  private constructor(
    readonly dbName: string,
    private readonly byName: Map<string, number>,
    /** Tables whose statistics view could not be built: every file is needed. */
    private readonly opaque: Set<number>,
    private readonly files: Map<number, number[]>,
    /** `USE` of the database and schema the building connection was on (survivors leaves it elsewhere). */
    private readonly home: string,
  ) {}

  /** Built on `conn` in memory, or in `file` (to be attached READ_ONLY elsewhere once built). */
  static async build(conn: DuckDBConnection, catalog: LakeCatalog, dbName: string, file?: string): Promise<PruneIndex> {
    const db = qi(dbName);
    await conn.run(`ATTACH ${lit(file ?? ':memory:')} AS ${db}`);
    const [before] = await rows(conn, 'SELECT current_database() AS d, current_schema() AS s');
    const restore = `USE ${qi(str(before?.d))}.${qi(str(before?.s))}`;
    const opaque = new Set<number>();
    try {
      await conn.run(`CREATE SCHEMA ${db}.${FILES_SCHEMA}`);
      for (const s of catalog.schemas) await conn.run(`CREATE SCHEMA IF NOT EXISTS ${db}.${qi(s.name)}`);
      for (const t of catalog.tables) {
        const branches: { file: DataFile; known: Set<number> }[] = [];
        for (const f of t.dataFiles) {
          const { sql, known } = fileTableSql(dbName, t, f);
          try {
            await conn.run(sql);
            branches.push({ file: f, known });
          } catch (e) {
            // statistics text that does not cast: this file is read whatever the filter
            degraded(
              'prune_table',
              `${t.schema}.${t.name}: a data file's statistics do not cast, so it is always read: ${firstLine(e)}`,
            );
            await conn.run(fileTableSql(dbName, t, { ...f, stats: new Map(), partitions: [] }).sql);
            branches.push({ file: f, known: new Set() });
          }
        }
        try {
          await runOneCreate(
            conn,
            `CREATE VIEW ${db}.${qi(t.schema)}.${qi(t.name)} AS ${tableViewSql(dbName, t, branches)}`,
            `table ${t.schema}.${t.name}`,
          );
        } catch (e) {
          degraded(
            'prune_table',
            `${dbName}: table ${t.tableId} cannot be pruned, every file is read: ${firstLine(e)}`,
          );
          opaque.add(t.tableId);
          await conn.run(`CREATE TABLE ${db}.${FILES_SCHEMA}.${qi(`t${t.tableId}_all`)} AS SELECT 1 AS x`);
          await runOneCreate(
            conn,
            `CREATE VIEW ${db}.${qi(t.schema)}.${qi(t.name)} AS ${opaqueViewSql(dbName, t)}`,
            `table ${t.schema}.${t.name}`,
          );
        }
      }
      const use = async (schema: string) => {
        await conn.run(`USE ${db}.${qi(schema)}`);
      };
      for (const m of catalog.macros) {
        await use(m.schema);
        await runOneCreate(
          conn,
          `CREATE MACRO ${db}.${qi(m.schema)}.${qi(m.name)} ${m.definition}`,
          `macro ${m.schema}.${m.name}`,
        ).catch((e: unknown) =>
          degraded('view_dropped', `${dbName}: macro ${m.schema}.${m.name} could not be created: ${firstLine(e)}`),
        );
      }
      for (const w of await createViews(conn, dbName, catalog.views, use)) degraded('view_dropped', `${dbName}: ${w}`);
      await conn.run(restore);
    } catch (e) {
      await conn.run(restore).catch(() => undefined);
      await conn
        .run(`DETACH ${db}`)
        .catch((err: unknown) => degraded('detach', `detaching ${dbName} failed: ${firstLine(err)}`));
      throw e;
    }
    const byName = new Map(catalog.tables.map((t) => [`${t.schema}.${t.name}`, t.tableId]));
    const files = new Map(catalog.tables.map((t) => [t.tableId, t.dataFiles.map((f) => f.id)]));
    return new PruneIndex(dbName, byName, opaque, files, restore);
  }

  /**
   * Which files of which tables `sql` reads, judged on `conn` (which must not be in use elsewhere:
   * it switches to the pruning database for the EXPLAIN). null when DuckDB cannot plan the
   * statement there (parameters, a name outside the version…): the caller must then assume every file.
   */
  async survivors(
    conn: DuckDBConnection,
    sql: string,
    searchPath: readonly string[] = ['main'],
    params: readonly BoundValue[] = [],
  ): Promise<Survivors | null> {
    let plan: string;
    const path = searchPath.length ? searchPath : ['main'];
    counted('prune_explain');
    try {
      await conn.run(`USE ${qi(this.dbName)}.${qi(path[0]!)}`);
      // names resolve as on the session's search path, but among the statistics views
      await conn.run(`SET search_path = ${lit(path.map((s) => `${qi(this.dbName)}.${qi(s)}`).join(','))}`);
      if (params.length === 0) {
        const [r] = await rows(conn, `EXPLAIN (FORMAT JSON) ${sql}`);
        plan = str(r?.explain_value);
      } else {
        // bound values are constants to the optimizer: a parameterised statement prunes like its literal form
        const p = await conn.prepare(`EXPLAIN (FORMAT JSON) ${sql}`);
        try {
          params.forEach((v, i) => (v.value === null ? p.bindNull(i + 1) : p.bindValue(i + 1, v.value, v.type)));
          const r = (await p.runAndReadAll()).getRowObjects()[0];
          plan = str(r?.explain_value);
        } finally {
          p.destroySync();
        }
      }
    } catch {
      // the message may quote the client's statement: not logged
      degraded('prune_plan', `${this.dbName}: the statement cannot be planned for pruning, every file is read`);
      return null;
    }
    const out: Survivors = new Map();
    const all = new Set<number>();
    const prefix = `${this.dbName}.${FILES_SCHEMA}.`;
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(visit);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const n = node as { extra_info?: { Table?: unknown }; children?: unknown };
      const table = n.extra_info?.Table;
      if (typeof table === 'string' && table.startsWith(prefix)) {
        const name = table.slice(prefix.length);
        const whole = /^t(\d+)_all$/.exec(name);
        if (whole) all.add(Number(whole[1]));
        const m = /^t(\d+)_f(\d+)$/.exec(name);
        if (m) {
          const tid = Number(m[1]);
          if (!out.has(tid)) out.set(tid, new Set());
          out.get(tid)!.add(Number(m[2]));
        }
      }
      visit(n.children);
    };
    try {
      visit(JSON.parse(plan));
    } catch {
      degraded('prune_plan', `${this.dbName}: the pruning plan is not JSON, every file is read`);
      return null;
    }
    for (const tid of all) out.set(tid, new Set(this.files.get(tid) ?? []));
    return out;
  }

  /** Whether the table's statistics could be used at all (else every file is needed). */
  isOpaque(tableId: number): boolean {
    return this.opaque.has(tableId);
  }

  tableId(schema: string, name: string): number | undefined {
    return this.byName.get(`${schema}.${name}`);
  }

  async dispose(conn: DuckDBConnection): Promise<void> {
    // DuckDB refuses to detach a connection's current database, where survivors leaves it
    await conn.run(this.home);
    await conn.run(`DETACH DATABASE IF EXISTS ${qi(this.dbName)}`);
  }
}
