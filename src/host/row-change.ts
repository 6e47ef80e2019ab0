/**
 * fdl delete / fdl update: a new version whose catalog changes rows of one table the way DuckLake's
 * own DELETE and UPDATE do (the extension's layout, checked against its fixtures):
 *   - the rows the predicate matches are read with the project's lake reader (their data file and
 *     position, or inlined table and row id) — DuckDB parses and binds --where and --set;
 *   - each data file that loses rows gets a Parquet delete file (file_path, pos; field ids
 *     2147483646/2147483645). A file that already had one gets a partial delete file instead: old and
 *     new positions with the snapshot that deleted each (_ducklake_internal_snapshot_id), the old row
 *     replaced. A file that loses every row ends (end_snapshot) instead; inlined rows end in place;
 *   - an update also writes the changed rows to new data files that keep their row ids
 *     (_ducklake_internal_row_id, field id 2147483540).
 * Then files.json, signature, version.json and the branch move, as fdl import does; a failure removes
 * everything the run wrote.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseVersionJson } from '../resolver/records.js';
import { openCatalog, tableContext, tableSql } from '../lake/index.js';
import { ROW_ID_FIELD_ID } from '../lake/tablesql.js';
import type { LakeTable } from '../lake/model.js';
import { CatalogBuilder, type TableDeletes } from './catalog-writer.js';
import { lit, qi, type ColDef } from './coltypes.js';
import { writeLayout } from './file-writer.js';
import { dataPathOf, partitionKeys, type VersionWriteOptions } from './import.js';
import { DEFAULT_TARGET_FILE_SIZE } from './layout.js';
import { parentHashes } from './files-json.js';
import { hashFile, readStore } from './repo.js';
import type { WriteTarget } from './target.js';
import { uuidv7 } from './uuid.js';
import { compactCatalog, finishVersion, preflightVersion } from './version-writer.js';
import { checkedAssignments, checkedPredicate } from './user-sql.js';
import { WriteJournal } from './write-journal.js';
import { openWorkspace } from './workspace.js';
import { rows as rowsOf, type Row } from '../lake/sql.js';

export interface RowChangeOptions extends VersionWriteOptions {
  /** SCHEMA.TABLE (schema defaults to main). */
  table: string;
  /** A SQL predicate over the table's columns (DuckDB syntax). */
  where: string;
  /** Update: `col = expr, …` (DuckDB's UPDATE … SET list); absent: delete. */
  set?: string;
}

export interface RowChangeResult {
  versionId: string;
  parent: string;
  snapshotId: number;
  /** Rows the predicate matched (deleted, or updated). */
  rows: number;
  /** Delete files written, data files ended, new data files. */
  deleteFiles: number;
  endedFiles: number;
  dataFiles: number;
}

/** No row matched: nothing written. The command line exits 0 (the rows are already absent), the API throws. */
export class NoRowMatched extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoRowMatched';
  }
}

const MATCHED = '__fdl_rows';
/** Field ids of a Parquet delete file, as the extension writes them (the snapshot column only in partial ones). */
const deleteFieldIds = (partial: boolean) =>
  `{file_path: 2147483646, pos: 2147483645${partial ? ', _ducklake_internal_snapshot_id: 2147483539' : ''}}`;

export function parseTableName(spec: string): [string, string] {
  const dot = spec.indexOf('.');
  const [schema, table] = dot < 0 ? ['main', spec] : [spec.slice(0, dot), spec.slice(dot + 1)];
  if (!schema || !table || table.includes('.'))
    throw new Error(`--table wants SCHEMA.TABLE, got ${JSON.stringify(spec)}`);
  return [schema, table];
}

/**
 * One user-written statement: prepared, so DuckDB refuses a second statement hidden in the text; its
 * errors name the table, not our scratch table.
 */
async function runUserSql(conn: DuckDBConnection, sql: string, flag: string, table: string): Promise<void> {
  try {
    const st = await conn.prepare(sql);
    await st.run();
  } catch (e) {
    throw new Error(`${flag}: ${(e as Error).message.split('\n')[0]!.replaceAll(MATCHED, table)}`);
  }
}

export async function changeRows(location: string, opts: RowChangeOptions): Promise<RowChangeResult> {
  const say = opts.progress ?? (() => undefined);
  const step = opts.step ?? (() => undefined);
  const verb = opts.set === undefined ? 'delete' : 'update';
  const [schema, tableName] = parseTableName(opts.table);
  const display = `${schema}.${tableName}`;
  if (!opts.where.trim()) throw new Error(`--where is empty: give a predicate (--where true to ${verb} every row)`);
  if (opts.set !== undefined && !opts.set.trim()) throw new Error('--set is empty: give col = expr, …');
  // Everything checked before the first write.
  const vt = await preflightVersion(location, opts);
  const { target, settings, parent, refKey } = vt;
  if (!parent) throw new Error(`${refKey} names no version in ${target.location}: there are no rows to ${verb}`);
  const id = uuidv7();
  const ws = await openWorkspace(verb);
  const { tmp, conn } = ws;
  let journal: WriteJournal | null = null;
  try {
    await conn.run("SET TimeZone = 'UTC'");
    await conn.run(`SET temp_directory = ${lit(join(tmp, 'spill'))}`);
    // DuckDB's parse of --where and --set decides what they are; its rendering is what runs (user-sql.ts).
    const where = await checkedPredicate(conn, opts.where);
    const set = opts.set === undefined ? undefined : await checkedAssignments(conn, opts.set);
    const vj = await target.read(`versions/${parent}/version.json`);
    if (!vj) throw new Error(`${refKey} points at ${parent}, which has no version.json`);
    const rec = parseVersionJson(vj.body, parent);
    const cat = rec.catalogs[0]!;
    if (cat.format.ducklake !== '1.0')
      throw new Error(`${parent} has a DuckLake ${cat.format.ducklake} catalog; this writer changes 1.0 catalogs only`);
    const store = await readStore(target);
    const work = join(tmp, 'work.duckdb');
    await store.download(`versions/${parent}/${cat.path}`, work, { sha256: cat.sha256, expectedSize: cat.size });
    const parentDataset = rec.files?.['dataset.json']
      ? ((await target.read(`versions/${parent}/dataset.json`))?.body ?? null)
      : null;
    const parentFiles = rec.files?.['files.json']
      ? ((await target.read(`versions/${parent}/files.json`))?.body ?? null)
      : null;
    const hashes = new Map<string, string>(parentHashes(parentFiles));

    // The rows the predicate matches, read by the lake reader from verified copies of the table's files.
    const catalog = await openCatalog(conn, work, 'meta');
    if (catalog.encrypted)
      throw new Error(
        `${parent} is an encrypted lake: ${verb} would have to write encrypted delete files, which this writer does not`,
      );
    const table = catalog.tables.find((t) => t.schema === schema && t.name === tableName);
    if (!table)
      throw new Error(
        `version ${parent} has no table ${display} (tables: ${catalog.tables.map((t) => `${t.schema}.${t.name}`).join(', ') || 'none'})`,
      );
    const local = await verifiedCopies(table, settings.dataDir, hashes, target, store, tmp);
    const locate = (rel: string) => local.get(rel) ?? rel;
    const ctx = await tableContext(conn, catalog, [table], locate);
    // From here DuckDB reads and writes only the scratch folder and the repository's data folder (the table's files).
    const allowed = [tmp, ...(target.localPath ? [join(target.location, settings.dataDir)] : [])];
    await conn.run(`SET allowed_directories = [${allowed.map((d) => lit(d.endsWith('/') ? d : `${d}/`)).join(', ')}]`);
    await conn.run('SET enable_external_access = false');
    // A predicate is boolean, as PostgreSQL requires (42804): DuckDB would cast `--where id` to true and match every row.
    // (prepared: one statement only, as --where itself is run)
    const predicateType = await conn
      .prepare(`SELECT (${where}) AS predicate FROM (${tableSql(table, ctx, undefined, true)}) LIMIT 0`)
      .then((st) => st.columnType(0).toString())
      .catch((e: Error) => {
        throw new Error(`--where: ${e.message.split('\n')[0]!.replaceAll(MATCHED, display)}`);
      });
    if (predicateType !== 'BOOLEAN')
      throw new Error(
        `--where must be a boolean predicate, not ${predicateType.toLowerCase() || 'nothing'}: e.g. --where "id = 5" (nothing written)`,
      );
    await runUserSql(
      conn,
      `CREATE TEMP TABLE ${MATCHED} AS SELECT * FROM (${tableSql(table, ctx, undefined, true)}) WHERE (${where})`,
      '--where',
      display,
    );
    const matched = Number((await rowsOf(conn, `SELECT count(*) AS n FROM ${MATCHED}`))[0]!.n);
    if (matched === 0)
      throw new NoRowMatched(
        `no row of ${display} matches --where ${opts.where}: nothing to ${verb}; no version written (${refKey} stays at ${parent})`,
      );
    if (set !== undefined) await runUserSql(conn, `UPDATE ${MATCHED} SET ${set}`, '--set', display);
    say(`${verb === 'delete' ? 'deleting' : 'updating'} ${matched.toLocaleString('en')} row(s) of ${display} …`);

    const S = catalog.snapshotId + 1;
    const [dirRow] = await rowsOf(
      conn,
      `SELECT coalesce(s.path, '') || coalesce(t.path, '') AS dir FROM meta.ducklake_table t JOIN meta.ducklake_schema s USING (schema_id)
      WHERE t.table_id = ${table.tableId} AND t.end_snapshot IS NULL AND s.end_snapshot IS NULL`,
    );
    const dir = String(dirRow!.dir);
    const oldDeletes = await rowsOf(
      conn,
      `SELECT delete_file_id, data_file_id, begin_snapshot, path, format FROM meta.ducklake_delete_file
      WHERE table_id = ${table.tableId} AND begin_snapshot < ${S} AND end_snapshot IS NULL`,
    );
    await conn.run('DETACH meta');

    journal = await WriteJournal.begin(target, id);
    const place = async (rel: string, file: string, sha256: string) => {
      const key = `${settings.dataDir}${rel}`;
      await journal!.intend(key);
      if (!(await target.create(key, { file })))
        throw journal!.forget(key, new Error(`${key} already exists in ${target.location}`));
      hashes.set(rel, sha256);
    };
    const deletes: TableDeletes = { tableId: table.tableId, files: [], ended: [], inlined: new Map() };
    const perFile = await rowsOf(
      conn,
      `SELECT __fdl_file AS f, count(*) AS n FROM ${MATCHED} WHERE __fdl_file IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    for (const pf of perFile) {
      const fileId = Number(pf.f);
      const df = table.dataFiles.find((f) => f.id === fileId)!;
      const old = oldDeletes.find((d) => Number(d.data_file_id) === fileId) ?? null;
      const oldSql =
        old === null || !df.delete
          ? null
          : await oldPositionsSql(conn, old, locate(df.delete.path), ctx.dvPositions.get(fileId));
      const before = oldSql === null ? 0 : Number((await rowsOf(conn, `SELECT count(*) AS n FROM (${oldSql})`))[0]!.n);
      if (
        df.recordCount !== null &&
        df.partialMax === null &&
        before + df.inlinedDeletes.length + Number(pf.n) >= df.recordCount
      ) {
        deletes.ended.push(fileId); // nothing of it is left: the file ends, as the extension's full-file delete does
        continue;
      }
      const name = `ducklake-${uuidv7()}-delete.parquet`;
      const out = join(tmp, name);
      const filePath = lit(dataPathOf(target, settings.dataDir) + df.path);
      const fresh = `SELECT __fdl_pos AS pos, ${S}::BIGINT AS snap FROM ${MATCHED} WHERE __fdl_file = ${fileId}`;
      const select =
        oldSql === null
          ? `SELECT ${filePath} AS file_path, pos FROM (${fresh}) ORDER BY pos`
          : `SELECT ${filePath} AS file_path, pos, snap AS _ducklake_internal_snapshot_id FROM (${fresh} UNION ALL ${oldSql}) ORDER BY pos`;
      const [st] = await rowsOf(
        conn,
        `COPY (${select}) TO ${lit(out)} (FORMAT parquet, FIELD_IDS ${deleteFieldIds(oldSql !== null)}, RETURN_STATS)`,
      );
      const h = await hashFile(out);
      await place(dir + name, out, h.sha256);
      deletes.files.push({
        dataFileId: fileId,
        name,
        count: Number(st!.count),
        size: h.size,
        footer: Number(st!.footer_size_bytes),
        replaces: old === null ? null : { id: Number(old.delete_file_id), begin: Number(old.begin_snapshot) },
      });
    }
    for (const r of await rowsOf(
      conn,
      `SELECT __fdl_inlined AS t, list(__fdl_rowid ORDER BY __fdl_rowid) AS ids FROM ${MATCHED} WHERE __fdl_inlined IS NOT NULL GROUP BY 1`,
    )) {
      deletes.inlined.set(String(r.t), (r.ids as unknown[]).map(Number));
    }

    await conn.run(`ATTACH ${lit(work)} AS cat`);
    const builder = await CatalogBuilder.open(conn, 'cat');
    let dataFiles = 0;
    if (opts.set !== undefined) {
      // The updated rows, in new files with the table's columns and their row ids.
      const plan = builder.planTable(schema, tableName, builder.existingColumns(schema, tableName)!, 'append');
      const keys = partitionKeys(builder, plan, {}, display);
      builder.setPartition(plan, keys?.map((k) => ({ columnId: k.col.id!, transform: k.key.transform })) ?? null);
      const rowId: ColDef = { name: '_ducklake_internal_row_id', type: 'int64', children: [], id: ROW_ID_FIELD_ID };
      const written = await writeLayout(conn, {
        source: `(SELECT ${plan.columns.map((c) => qi(c.name)).join(', ')}, __fdl_rowid AS _ducklake_internal_row_id FROM ${MATCHED} ORDER BY __fdl_rowid)`,
        cols: [...plan.columns, rowId],
        keys,
        sortBy: [],
        targetFileSize: DEFAULT_TARGET_FILE_SIZE,
        work: join(tmp, `stage-${uuidv7()}`),
        outDir: join(tmp, `out-${uuidv7()}`),
        label: `${display}'s updated rows in ${tmp}`,
      });
      for (const w of written) {
        const name = `${w.hiveDir}ducklake-${uuidv7()}.parquet`;
        await place(plan.dir + name, w.file, w.sha256);
        plan.files.push({
          name,
          records: w.records,
          size: w.size,
          footer: w.footer,
          stats: w.stats,
          partitionValues: w.partitionValues,
        });
      }
      dataFiles = written.length;
    }
    builder.addDeletes(deletes);
    await step('data');
    const snapshotId = await builder.commit({ author: opts.author, message: opts.message });
    if (snapshotId !== S) throw new Error(`internal error: snapshot ${snapshotId} written, ${S} expected`);
    const final = join(tmp, 'ducklake.duckdb');
    await compactCatalog(conn, 'cat', work, final);
    await finishVersion(conn, {
      vt,
      id,
      journal,
      catalogFile: final,
      formatVersion: '1.0',
      snapshotId,
      hashes,
      store,
      tmp,
      parentDataset,
      author: opts.author,
      message: opts.message,
      signKey: opts.signKey,
      say,
      step,
      detail: `(snapshot ${snapshotId})`,
    });
    return {
      versionId: id,
      parent,
      snapshotId,
      rows: matched,
      deleteFiles: deletes.files.length,
      endedFiles: deletes.ended.length,
      dataFiles,
    };
  } catch (e) {
    await journal?.rollback(refKey);
    throw e;
  } finally {
    await ws.close();
  }
}

/**
 * Local copies of the table's data and delete files, each checked against the sha256 the parent's
 * files.json records: deletes are positions in a file, so they are derived only from the bytes the
 * version signed. Local repositories are read in place.
 */
async function verifiedCopies(
  table: LakeTable,
  dataDir: string,
  hashes: Map<string, string>,
  target: WriteTarget,
  store: Awaited<ReturnType<typeof readStore>>,
  tmp: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of table.dataFiles) {
    for (const rel of [f.path, ...(f.delete ? [f.delete.path] : [])]) {
      if (out.has(rel)) continue;
      const key = `${dataDir}${rel}`;
      const sha256 = hashes.get(rel);
      if (target.localPath) {
        const path = target.localPath(key);
        if (sha256) {
          const h = await hashFile(path).catch((e: Error) => {
            throw new Error(`cannot read ${key}: ${e.message}`);
          });
          if (h.sha256 !== sha256)
            throw new Error(
              `${key} does not match the sha256 files.json records for it: refusing to derive a new version from it`,
            );
        }
        out.set(rel, path);
      } else {
        const dest = join(tmp, 'files', createHash('sha256').update(rel).digest('hex'));
        await store.download(key, dest, sha256 ? { sha256 } : {});
        out.set(rel, dest);
      }
    }
  }
  return out;
}

/** (pos, snap) of a file's current delete file: each position with the snapshot that deleted it. */
async function oldPositionsSql(
  conn: DuckDBConnection,
  old: Row,
  file: string,
  dv: number[] | undefined,
): Promise<string> {
  const begin = Number(old.begin_snapshot);
  if (old.format === 'puffin')
    return `SELECT unnest([${(dv ?? []).join(', ')}]::BIGINT[]) AS pos, ${begin}::BIGINT AS snap`;
  const from = `read_parquet(${lit(file)})`;
  const cols = (await conn.runAndReadAll(`SELECT * FROM ${from} LIMIT 0`)).columnNames();
  const snap = cols.includes('_ducklake_internal_snapshot_id') ? '_ducklake_internal_snapshot_id' : `${begin}::BIGINT`;
  return `SELECT pos, ${snap} AS snap FROM ${from}`;
}
