/**
 * Native DuckLake 1.0 catalog writer with plain DuckDB: appends one snapshot per import to a catalog
 * whose metadata tables are exactly the extension's (catalog-ddl.ts).
 * Inlining is never used: every row goes to a Parquet file, so no ducklake_inlined_* tables appear.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { uuidv7 } from './uuid.js';
import { lit, qi, leaves, sameTree, sqlType, type ColDef } from './coltypes.js';
import type { PartitionField, TableDeletes, TablePlan } from './catalog-plan.js';
import { readCatalogState, type TableState } from './catalog-state.js';
import { rows } from '../lake/sql.js';

// A fresh catalog (catalog-ddl.ts) and the plan's types (catalog-plan.ts), re-exported for the writers.
export { initCatalog } from './catalog-ddl.js';
export type { TableDeletes, TablePlan } from './catalog-plan.js';

/** Schema/table folders are their names when those need no quoting, else a UUID (as the extension does). */
const folder = (name: string, uuid: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : uuid) + '/';

/**
 * Reads what the next snapshot builds on (catalog-state.ts), hands out ids while tables are
 * planned, then writes the snapshot in one transaction.
 */
export class CatalogBuilder {
  private plans: TablePlan[] = [];
  private deletes: TableDeletes[] = [];
  private newSchemas = new Map<string, { id: number; path: string }>();

  private constructor(
    private readonly conn: DuckDBConnection,
    private readonly m: string,
    readonly snapshot: number,
    private schemaVersion: number,
    private nextCatalogId: number,
    private nextFileId: number,
    private readonly schemas: Map<string, { id: number; path: string }>,
    private readonly tables: Map<string, TableState>,
  ) {}

  static async open(conn: DuckDBConnection, alias: string): Promise<CatalogBuilder> {
    const m = qi(alias);
    const at = await readCatalogState(conn, m);
    return new CatalogBuilder(
      conn,
      m,
      at.snapshot,
      at.schemaVersion,
      at.nextCatalogId,
      at.nextFileId,
      at.schemas,
      at.tables,
    );
  }

  /** The table's live partition spec (column ids and transforms), or null. */
  existingPartition(schema: string, table: string): PartitionField[] | null {
    return this.tables.get(`${schema}.${table}`)?.partition?.fields ?? null;
  }

  /**
   * Sets the spec the plan's files are written with: the live one when it is the same, else a new
   * partition id (the old spec ends at the new snapshot, as ALTER TABLE … SET PARTITIONED BY does).
   */
  setPartition(plan: TablePlan, fields: PartitionField[] | null): void {
    const live = this.tables.get(`${plan.schema}.${plan.table}`)?.partition ?? null;
    const same = (a: PartitionField[], b: PartitionField[]) =>
      a.length === b.length && a.every((x, i) => x.columnId === b[i]!.columnId && x.transform === b[i]!.transform);
    if (plan.partition && fields && same(plan.partition.fields, fields)) return; // a second source for the same table
    if (!fields || fields.length === 0) plan.partition = null;
    else if (live && !plan.newColumns && same(live.fields, fields))
      plan.partition = { id: live.id, fields, isNew: false };
    else plan.partition = { id: this.nextCatalogId++, fields, isNew: true };
  }

  existingColumns(schema: string, table: string): ColDef[] | null {
    return this.tables.get(`${schema}.${table}`)?.columns ?? null;
  }

  /**
   * Plans the table's part of the snapshot. Append keeps the table's columns (the caller casts the
   * source to them); replace keeps them when the shape is unchanged, else starts new column ids.
   */
  planTable(schema: string, table: string, incoming: ColDef[], mode: 'append' | 'replace'): TablePlan {
    const key = `${schema}.${table}`;
    const existing = this.plans.find((p) => p.schema === schema && p.table === table);
    if (existing) return existing;
    let sch = this.schemas.get(schema) ?? this.newSchemas.get(schema);
    const schemaIsNew = !sch;
    if (!sch) {
      const uuid = uuidv7();
      sch = { id: this.nextCatalogId++, path: folder(schema, uuid) };
      this.newSchemas.set(schema, { ...sch, uuid } as { id: number; path: string });
    }
    const st = this.tables.get(key);
    const base = { schema, table, mode, schemaIsNew, files: [], partition: null };
    let plan: TablePlan;
    if (!st) {
      const tableId = this.nextCatalogId++;
      const dir = sch.path + folder(table, uuidv7());
      plan = { ...base, columns: numbered(incoming, 1), dir, tableId, isNew: true, newColumns: true };
    } else if (mode === 'append' || sameTree(st.columns, incoming)) {
      plan = { ...base, columns: st.columns, dir: st.path, tableId: st.id, isNew: false, newColumns: false };
    } else {
      const columns = numbered(incoming, st.maxColumnId + 1);
      plan = { ...base, columns, dir: st.path, tableId: st.id, isNew: false, newColumns: true };
    }
    this.plans.push(plan);
    return plan;
  }

  /** Row deletes for the next snapshot (written after the planned tables' files, as the extension orders ids). */
  addDeletes(d: TableDeletes): void {
    this.deletes.push(d);
  }

  /** Writes snapshot S+1 with every planned table and file; returns its id. */
  async commit(info: { author?: string; message?: string }): Promise<number> {
    const { conn, m } = this;
    const S = this.snapshot + 1;
    const changes: string[] = [];
    const schemaChanged = this.newSchemas.size > 0 || this.plans.some((p) => p.newColumns);
    if (schemaChanged) this.schemaVersion++;
    await conn.run('BEGIN TRANSACTION');
    try {
      for (const [name, s] of this.newSchemas) {
        const uuid = (s as { uuid?: string }).uuid ?? uuidv7();
        await conn.run(
          `INSERT INTO ${m}.ducklake_schema VALUES (${s.id}, ${lit(uuid)}, ${S}, NULL, ${lit(name)}, ${lit(s.path)}, true)`,
        );
        changes.push(`created_schema:${qi(name)}`);
      }
      for (const p of this.plans) {
        const schemaId = this.schemas.get(p.schema)?.id ?? this.newSchemas.get(p.schema)!.id;
        if (p.isNew) {
          const tpath = p.dir.slice((this.schemas.get(p.schema) ?? this.newSchemas.get(p.schema))!.path.length);
          await conn.run(
            `INSERT INTO ${m}.ducklake_table VALUES (${p.tableId}, ${lit(uuidv7())}, ${S}, NULL, ${schemaId}, ${lit(p.table)}, ${lit(tpath)}, true)`,
          );
          await conn.run(`INSERT INTO ${m}.ducklake_table_stats VALUES (${p.tableId}, 0, 0, 0)`);
          changes.push(`created_table:${qi(p.schema)}.${qi(p.table)}`);
        } else if (p.newColumns) {
          await conn.run(
            `UPDATE ${m}.ducklake_column SET end_snapshot = ${S} WHERE table_id = ${p.tableId} AND end_snapshot IS NULL`,
          );
          changes.push(`altered_table:${p.tableId}`);
        }
        if (p.newColumns) {
          const values: string[] = [];
          const walk = (cs: ColDef[], parent: number | null) => {
            for (const c of cs) {
              const nested = c.children.length > 0;
              values.push(
                `(${c.id}, ${S}, NULL, ${p.tableId}, ${c.id}, ${lit(c.name)}, ${lit(c.type)}, NULL, 'NULL', true, ${parent ?? 'NULL'}, ${nested ? "''" : "'literal'"}, 'duckdb')`,
              );
              walk(c.children, c.id!);
            }
          };
          walk(p.columns, null);
          await conn.run(`INSERT INTO ${m}.ducklake_column VALUES ${values.join(', ')}`);
          await conn.run(
            `INSERT INTO ${m}.ducklake_schema_versions VALUES (${S}, ${this.schemaVersion}, ${p.tableId})`,
          );
        }
        if (p.mode === 'replace' && !p.isNew) {
          await conn.run(
            `UPDATE ${m}.ducklake_data_file SET end_snapshot = ${S} WHERE table_id = ${p.tableId} AND end_snapshot IS NULL`,
          );
          await conn.run(
            `UPDATE ${m}.ducklake_delete_file SET end_snapshot = ${S} WHERE table_id = ${p.tableId} AND end_snapshot IS NULL`,
          );
          changes.push(`deleted_from_table:${p.tableId}`);
        }
        const live = this.tables.get(`${p.schema}.${p.table}`)?.partition ?? null;
        if (live && (!p.partition || p.partition.id !== live.id)) {
          await conn.run(
            `UPDATE ${m}.ducklake_partition_info SET end_snapshot = ${S} WHERE table_id = ${p.tableId} AND end_snapshot IS NULL`,
          );
        }
        if (p.partition?.isNew) {
          await conn.run(
            `INSERT INTO ${m}.ducklake_partition_info VALUES (${p.partition.id}, ${p.tableId}, ${S}, NULL)`,
          );
          const keys = p.partition.fields.map(
            (f, i) => `(${p.partition!.id}, ${p.tableId}, ${i}, ${f.columnId}, ${lit(f.transform)})`,
          );
          await conn.run(`INSERT INTO ${m}.ducklake_partition_column VALUES ${keys.join(', ')}`);
        }
        await this.writeFiles(p, S);
        if (p.files.length > 0) changes.push(`inserted_into_table:${p.tableId}`);
      }
      for (const d of this.deletes) await this.writeDeletes(d, S, changes);
      await conn.run(
        `INSERT INTO ${m}.ducklake_snapshot VALUES (${S}, now(), ${this.schemaVersion}, ${this.nextCatalogId}, ${this.nextFileId})`,
      );
      await conn.run(
        `INSERT INTO ${m}.ducklake_snapshot_changes VALUES (${S}, ${lit(changes.join(','))}, ${lit(info.author ?? null)}, ${lit(info.message ?? null)}, NULL)`,
      );
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
    return S;
  }

  private async writeFiles(p: TablePlan, S: number): Promise<void> {
    const { conn, m } = this;
    const st = this.tables.get(`${p.schema}.${p.table}`);
    let rowId = st?.nextRowId ?? 0;
    const leafCols = leaves(p.columns);
    for (const f of p.files) {
      const fileId = this.nextFileId++;
      await conn.run(
        `INSERT INTO ${m}.ducklake_data_file VALUES (${fileId}, ${p.tableId}, ${S}, NULL, NULL, ${lit(f.name)}, true, 'parquet', ${f.records}, ${f.size}, ${f.footer}, ${rowId}, ${p.partition?.id ?? 'NULL'}, NULL, NULL, NULL)`,
      );
      if (p.partition && f.partitionValues) {
        const pv = f.partitionValues.map((v, i) => `(${fileId}, ${p.tableId}, ${i}, ${lit(v)})`);
        await conn.run(`INSERT INTO ${m}.ducklake_file_partition_value VALUES ${pv.join(', ')}`);
      }
      rowId += f.records;
      const values: string[] = [];
      for (const { key, col } of leafCols) {
        const s = f.stats.get(key);
        if (!s) continue; // column absent from the file: readers see NULL for it
        const num = (k: string) => (s.has(k) ? Number(s.get(k)) : 0);
        const nan = s.has('has_nan') ? String(s.get('has_nan') === 'true') : 'NULL';
        values.push(
          `(${fileId}, ${p.tableId}, ${col.id}, ${num('column_size_bytes')}, ${num('num_values') - num('null_count')}, ${num('null_count')}, ${lit(s.get('min') ?? null)}, ${lit(s.get('max') ?? null)}, ${nan}, NULL)`,
        );
      }
      if (values.length) await conn.run(`INSERT INTO ${m}.ducklake_file_column_stats VALUES ${values.join(', ')}`);
    }
    // Table statistics describe the live files at S: gross rows, next row id, bytes, and per column
    // null/NaN flags and min/max (compared as the column's type, kept in the files' text form).
    const live = `f.table_id = ${p.tableId} AND f.begin_snapshot <= ${S} AND (f.end_snapshot IS NULL OR f.end_snapshot > ${S})`;
    // record_count: gross rows inserted (the extension's meaning); after replace, the new files' rows.
    const added = rowId - (st?.nextRowId ?? 0);
    const records = p.mode === 'replace' ? added : (await this.recordCount(p.tableId)) + added;
    await conn.run(`DELETE FROM ${m}.ducklake_table_stats WHERE table_id = ${p.tableId}`);
    await conn.run(
      `INSERT INTO ${m}.ducklake_table_stats SELECT ${p.tableId}, ${records}, ${rowId}, (SELECT coalesce(sum(file_size_bytes), 0) FROM ${m}.ducklake_data_file f WHERE ${live})`,
    );
    await conn.run(`DELETE FROM ${m}.ducklake_table_column_stats WHERE table_id = ${p.tableId}`);
    const [cnt] = await rows(conn, `SELECT count(*) AS n FROM ${m}.ducklake_data_file f WHERE ${live}`);
    const files = Number(cnt!.n);
    for (const { col } of leafCols) {
      if (col.id === undefined || ['struct', 'list', 'map'].includes(col.type)) continue;
      const t = sqlType(col);
      await conn.run(`INSERT INTO ${m}.ducklake_table_column_stats
        SELECT ${p.tableId}, ${col.id},
          bool_or(s.null_count > 0) OR count(*) < ${files},
          bool_or(s.contains_nan),
          CASE WHEN count(*) = count(TRY_CAST(s.min_value AS ${t})) THEN arg_min(s.min_value, TRY_CAST(s.min_value AS ${t})) END,
          CASE WHEN count(*) = count(TRY_CAST(s.max_value AS ${t})) THEN arg_max(s.max_value, TRY_CAST(s.max_value AS ${t})) END,
          NULL
        FROM ${m}.ducklake_file_column_stats s JOIN ${m}.ducklake_data_file f USING (data_file_id)
        WHERE s.column_id = ${col.id} AND ${live}
        HAVING count(*) > 0`);
    }
  }

  private async writeDeletes(d: TableDeletes, S: number, changes: string[]): Promise<void> {
    const { conn, m } = this;
    for (const f of d.files) {
      const id = this.nextFileId++;
      if (f.replaces) await conn.run(`DELETE FROM ${m}.ducklake_delete_file WHERE delete_file_id = ${f.replaces.id}`);
      await conn.run(
        `INSERT INTO ${m}.ducklake_delete_file VALUES (${id}, ${d.tableId}, ${f.replaces?.begin ?? S}, NULL, ${f.dataFileId}, ${lit(f.name)}, true, 'parquet', ${f.count}, ${f.size}, ${f.footer}, NULL, ${f.replaces ? S : 'NULL'})`,
      );
    }
    for (const fileId of d.ended) {
      await conn.run(
        `UPDATE ${m}.ducklake_data_file SET end_snapshot = ${S} WHERE data_file_id = ${fileId} AND end_snapshot IS NULL`,
      );
      await conn.run(
        `UPDATE ${m}.ducklake_delete_file SET end_snapshot = ${S} WHERE data_file_id = ${fileId} AND end_snapshot IS NULL`,
      );
    }
    if (d.ended.length) {
      const live = `f.table_id = ${d.tableId} AND f.begin_snapshot <= ${S} AND (f.end_snapshot IS NULL OR f.end_snapshot > ${S})`;
      await conn.run(
        `UPDATE ${m}.ducklake_table_stats SET file_size_bytes = (SELECT coalesce(sum(file_size_bytes), 0) FROM ${m}.ducklake_data_file f WHERE ${live}) WHERE table_id = ${d.tableId}`,
      );
    }
    for (const [table, ids] of d.inlined) {
      if (ids.length)
        await conn.run(
          `UPDATE ${m}.main.${qi(table)} SET end_snapshot = ${S} WHERE end_snapshot IS NULL AND begin_snapshot <= ${S} AND row_id IN (${ids.join(', ')})`,
        );
    }
    if (d.files.length || d.ended.length) changes.push(`deleted_from_table:${d.tableId}`);
    if ([...d.inlined.values()].some((ids) => ids.length)) changes.push(`inlined_delete:${d.tableId}`);
  }

  private async recordCount(tableId: number): Promise<number> {
    const [r] = await rows(
      this.conn,
      `SELECT record_count FROM ${this.m}.ducklake_table_stats WHERE table_id = ${tableId}`,
    );
    return r ? Number(r.record_count) : 0;
  }
}

/** Column ids handed out from `first` in order, each column before its children. */
function numbered(cs: ColDef[], first: number): ColDef[] {
  let next = first;
  const assign = (list: ColDef[]): ColDef[] =>
    list.map((c) => {
      const id = next++;
      return { ...c, id, children: assign(c.children) };
    });
  return assign(cs);
}
