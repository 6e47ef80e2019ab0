/**
 * attachCatalog: build the per-version database (schemas, one view per table — or, for the tables the
 * caller names, a native DuckDB table holding the view's rows —, DuckLake macros and views, comments). Built once per version; every session on that version shares it.
 */
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE, isSqlError } from '../errors.js';
import { decodeDeletionVector } from './deletion-vector.js';
import type { LakeCatalog, LakeTable } from './model.js';
import { filesToProbe, probeShapes } from './probe.js';
import { lit, qi, rows, str } from './sql.js';
import { tableSql } from './tablesql.js';
import { countingTableSql } from './count-only.js';
import { createViews } from './views.js';
import { runOneCreate } from './one-statement.js';
import { degraded, firstLine } from '../degraded.js';

export interface AttachOptions {
  /**
   * Create each table's view only when `materializeTable` is called (remote repositories: a
   * table's files are downloaded when a query first touches it). Until then the view has the
   * table's columns and types but raises an error if read, so nothing partial is ever served.
   */
  deferTables?: boolean;
  /**
   * These tables get the placeholder view too (a local table whose files did not verify: its files,
   * absent or damaged, are not read until they verify and `materializeTable` builds its view).
   */
  placeholders?: ReadonlySet<LakeTable>;
  /** Build the database in this file instead of in memory (to be attached READ_ONLY elsewhere once built). */
  file?: string;
  /**
   * These tables (verified, read now) are native DuckDB tables holding the rows their view would read
   * (CREATE TABLE … AS the view's SQL), under the same name: DuckDB keeps a statement's plan over a table,
   * not over read_parquet (versions/native-tables.ts).
   */
  native?: ReadonlySet<LakeTable>;
  /**
   * Wall ms all the native copies may take together. Parquet bytes do not bound a copy's work (a store
   * writer's few MiB can encode billions of rows or one long string repeated); DuckDB interrupts a copy still
   * running then, and the table, and every table after it, is a view as without `native`.
   */
  nativeBudgetMs?: number;
  /** How a file the gateway reads itself (a deletion vector) is read: by default as `locate` names it. */
  readBytes?: ReadBytes;
  /**
   * DuckDB's bytes the copies may hold, once checkpointed (their blocks: data and long strings' overflow), a
   * table's and all of them together in the order they were made. What the sessions' buffer pool keeps of a copy
   * it read is these blocks, which the Parquet bytes do not bound (8,192 rows of one 100 KB value: 11 KB of
   * Parquet, 781 MiB of blocks). A copy over either is dropped and its table is a view. Only for a `file`.
   */
  nativeBlockBytes?: { table: number; version: number };
}

/** A data file's bytes by its path relative to the data folder (versions/attach.ts: hashed as read, local). */
export type ReadBytes = (rel: string) => Promise<Buffer>;

export async function attachCatalog(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  targetDb: string,
  locate: (rel: string) => string,
  options: AttachOptions = {},
): Promise<{ warnings: string[]; native: ReadonlySet<LakeTable> }> {
  const [before] = await rows(conn, 'SELECT current_database() AS d, current_schema() AS s');
  const restore = `USE ${qi(str(before?.d))}.${qi(str(before?.s))}`;
  const db = qi(targetDb);
  await conn.run(`ATTACH ${lit(options.file ?? ':memory:')} AS ${db}`);
  const use = async (schema: string) => {
    await conn.run(`USE ${db}.${qi(schema)}`);
  };
  try {
    for (const s of catalog.schemas) {
      await conn.run(`CREATE SCHEMA IF NOT EXISTS ${db}.${qi(s.name)}`);
      if (s.comment !== null)
        await conn
          .run(`COMMENT ON SCHEMA ${db}.${qi(s.name)} IS ${lit(s.comment)}`)
          .catch((e: unknown) => degraded('comment_dropped', `schema ${s.name}: ${firstLine(e)}`));
    }

    const deferred = (t: LakeTable) => options.deferTables || options.placeholders?.has(t);
    const built = catalog.tables.filter((t) => !deferred(t));
    const ctx = built.length ? await tableContext(conn, catalog, built, locate, undefined, options.readBytes) : null;
    const copyUntil = Date.now() + (options.nativeBudgetMs ?? Infinity);
    const native = new Map<LakeTable, string>();
    for (const t of catalog.tables) {
      const sql = ctx && !deferred(t) ? tableSql(t, ctx) : null;
      if (sql !== null && options.native?.has(t) && (await createNativeTable(conn, targetDb, t, sql, copyUntil))) {
        native.set(t, sql);
        continue;
      }
      await createTableView(conn, targetDb, t, sql ?? placeholderSql(t));
    }
    if (options.file && options.nativeBlockBytes && native.size)
      await copiesWithinBlocks(conn, targetDb, native, options.nativeBlockBytes);

    // Macros before views (views call them); table macros bind at creation, hence USE.
    const warnings: string[] = [];
    for (const m of catalog.macros) {
      try {
        await use(m.schema);
        await runOneCreate(
          conn,
          `CREATE MACRO ${db}.${qi(m.schema)}.${qi(m.name)} ${m.definition}`,
          `macro ${m.schema}.${m.name}`,
        );
      } catch (e) {
        warnings.push(`macro ${m.schema}.${m.name} could not be created: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    warnings.push(...(await createViews(conn, targetDb, catalog.views, use)));
    for (const v of catalog.views) {
      if (v.comment === null) continue;
      await conn
        .run(`COMMENT ON VIEW ${db}.${qi(v.schema)}.${qi(v.name)} IS ${lit(v.comment)}`)
        .catch((e: unknown) => degraded('comment_dropped', `${v.schema}.${v.name}: ${firstLine(e)}`));
    }
    await conn.run(restore);
    return { warnings, native: new Set(native.keys()) };
  } catch (e) {
    await conn.run(restore).catch(() => undefined);
    await conn
      .run(`DETACH ${db}`)
      .catch((err: unknown) => degraded('detach', `detaching ${targetDb} failed: ${firstLine(err)}`));
    throw e;
  }
}

/** Replace a deferred table's placeholder with its real view, once its files are local. */
export async function materializeTable(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  table: LakeTable,
  targetDb: string,
  locate: (rel: string) => string,
  only?: ReadonlySet<number>,
  /** Rows counted from the catalog instead of read (countingTableSql): for one counting statement. */
  counted?: number,
  readBytes?: ReadBytes,
): Promise<void> {
  const ctx = await tableContext(conn, catalog, [table], locate, only, readBytes);
  const sql =
    counted === undefined ? tableSql(table, ctx, only) : countingTableSql(table, ctx, only ?? new Set(), counted);
  await createTableView(conn, targetDb, table, sql, true);
}

/** Footer shapes and decoded deletion vectors the table SQL needs for `tables`. */
export async function tableContext(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  tables: LakeTable[],
  locate: (rel: string) => string,
  only?: ReadonlySet<number>,
  readBytes: ReadBytes = (rel) => readFile(locate(rel)),
) {
  // only the files the view will read are on disk (remote repositories fetch what a query needs)
  const probe = filesToProbe(tables);
  if (only) for (const id of [...probe.keys()]) if (!only.has(id)) probe.delete(id);
  const shapes = await probeShapes(conn, probe, locate);
  const dvPositions = new Map<number, number[]>();
  for (const t of tables) {
    for (const f of t.dataFiles) {
      if (f.delete?.format !== 'puffin' || (only && !only.has(f.id))) continue;
      const what = `${f.delete.path} (table ${qi(t.schema)}.${qi(t.name)})`;
      let bytes: Buffer;
      try {
        bytes = await readBytes(f.delete.path);
      } catch (e) {
        if (isSqlError(e) && e.sqlstate === SQLSTATE.dataCorrupted) throw e;
        throw new SqlError(SQLSTATE.ioError, `cannot read deletion vector ${what}: ${(e as Error).message}`);
      }
      dvPositions.set(f.id, decodeDeletionVector(bytes, what));
    }
  }
  return {
    snapshot: catalog.snapshotId,
    metaAlias: catalog.metaAlias,
    locate,
    nameMaps: catalog.nameMaps,
    shapes,
    dvPositions,
  };
}

async function createTableView(
  conn: DuckDBConnection,
  targetDb: string,
  t: LakeTable,
  sql: string,
  replace = false,
): Promise<void> {
  const name = `${qi(targetDb)}.${qi(t.schema)}.${qi(t.name)}`;
  await runOneCreate(
    conn,
    `CREATE ${replace ? 'OR REPLACE ' : ''}VIEW ${name} AS ${sql}`,
    `table ${t.schema}.${t.name}`,
  );
  await commentTable(conn, name, t, 'VIEW');
}

/**
 * The table's rows copied into a DuckDB table of the same name and columns, read by the view's own SQL:
 * the builder runs one thread and keeps insertion order, so the rows stand in the order the view reads them.
 * false, with nothing created, when the copy did not finish by `until` (interrupted by DuckDB, rolled back) or
 * failed.
 */
async function createNativeTable(
  conn: DuckDBConnection,
  targetDb: string,
  t: LakeTable,
  sql: string,
  until: number,
): Promise<boolean> {
  const name = `${qi(targetDb)}.${qi(t.schema)}.${qi(t.name)}`;
  const left = until - Date.now();
  let late = left <= 0;
  if (!late) {
    // again every 50 ms: an interrupt that lands while DuckDB prepares is forgotten when the run begins
    let again: ReturnType<typeof setInterval> | undefined;
    const timer = Number.isFinite(left)
      ? setTimeout(() => {
          late = true;
          conn.interrupt();
          again = setInterval(() => conn.interrupt(), 50);
        }, left)
      : undefined;
    try {
      await runOneCreate(conn, `CREATE TABLE ${name} AS ${sql}`, `table ${t.schema}.${t.name}`);
    } catch (e) {
      // A copy that fails (the builder's memory: a few KiB of Parquet can hold hundreds of MiB of repeated
      // strings) leaves the table a view, as one past its time: the version is served, its view reads as before.
      if (!late) {
        degraded('native_table', `table ${t.schema}.${t.name} is a view: its copy failed: ${firstLine(e)}`);
        return false;
      }
    } finally {
      clearTimeout(timer);
      clearInterval(again);
    }
  }
  if (late) {
    // (an interrupt that came after the copy finished did nothing: the table is kept)
    const [kept] = await rows(
      conn,
      `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = ${lit(targetDb)} AND schema_name = ${lit(t.schema)} AND table_name = ${lit(t.name)}`,
    );
    if (Number(kept?.n) === 0) {
      degraded(
        'native_table',
        `table ${t.schema}.${t.name} is a view: its copy ran past the version's time for copies`,
      );
      return false;
    }
  }
  await commentTable(conn, name, t, 'TABLE');
  return true;
}

/**
 * The copies checkpointed, then each measured by its blocks (pragma_storage_info: a segment's block and its
 * overflow blocks, times the block size); one over `limits.table`, or past `limits.version` with those before it,
 * is dropped and its table is a view (`copies` loses it).
 */
async function copiesWithinBlocks(
  conn: DuckDBConnection,
  targetDb: string,
  copies: Map<LakeTable, string>,
  limits: { table: number; version: number },
): Promise<void> {
  await conn.run(`CHECKPOINT ${qi(targetDb)}`);
  let total = 0;
  for (const [t, sql] of [...copies]) {
    const name = `${qi(targetDb)}.${qi(t.schema)}.${qi(t.name)}`;
    // (a name holding a double quote is not read back by pragma_storage_info: such a copy is not measured, so dropped)
    const bytes = await rows(
      conn,
      `SELECT count(DISTINCT b) * (SELECT block_size FROM pragma_database_size() WHERE database_name = ${lit(targetDb)}) AS bytes
       FROM (SELECT unnest(list_prepend(block_id, additional_block_ids)) AS b FROM pragma_storage_info(${lit(name)})) WHERE b >= 0`,
    ).then(
      ([m]) => Number(m?.bytes ?? 0),
      () => Infinity,
    );
    if (bytes <= limits.table && total + bytes <= limits.version) {
      total += bytes;
      continue;
    }
    await conn.run(`DROP TABLE ${name}`);
    await createTableView(conn, targetDb, t, sql);
    copies.delete(t);
    degraded(
      'native_table',
      `table ${t.schema}.${t.name} is a view: its copy holds ${bytes} bytes of DuckDB blocks, over the ${bytes > limits.table ? `table's ${limits.table}` : `version's ${limits.version} with the copies before it`}`,
    );
  }
}

async function commentTable(conn: DuckDBConnection, name: string, t: LakeTable, kind: 'VIEW' | 'TABLE'): Promise<void> {
  if (t.comment !== null) await conn.run(`COMMENT ON ${kind} ${name} IS ${lit(t.comment)}`);
  for (const c of t.columns) {
    if (c.comment !== null) await conn.run(`COMMENT ON COLUMN ${name}.${qi(c.name)} IS ${lit(c.comment)}`);
  }
}

/** The table's columns and types; reading it fails loudly instead of returning nothing. */
function placeholderSql(t: LakeTable): string {
  const message = lit(`fdl: table ${t.schema}.${t.name} is not downloaded yet`);
  return `SELECT ${t.columns.map((c) => `CAST(error(${message}) AS ${c.type}) AS ${qi(c.name)}`).join(', ')}`;
}
