/**
 * fdl import: source files → Parquet data files with field ids → parent catalog + one snapshot →
 * dataset.json, files.json, signature, version.json (last) → conditional branch move → refs.json.
 * Until the branch moves, nothing a reader resolves points at the new version; a crash at any step
 * leaves at most unreferenced files.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parseVersionJson } from '../resolver/records.js';
import { CatalogBuilder, initCatalog, type TablePlan } from './catalog-writer.js';
import { colDef, lit, qi, sameTree, sqlType, type ColDef } from './coltypes.js';
import { checkRefName, readRef } from './refs-writer.js';
import { readJsonFile, writeVersion } from './version-writer.js';
import { hashStored, readSettings, readStore } from './repo.js';
import { LocalTarget, openTarget, S3Target, type S3TargetOptions, type WriteTarget } from './target.js';
import { uuidv7 } from './uuid.js';
import { checkReadableFile, checkSignKey, checkWritableTarget } from './preflight.js';
import { WriteJournal } from './write-journal.js';
import { DEFAULT_TARGET_FILE_SIZE, transformFits, type TableLayout, type Transform } from './layout.js';
import { writeLayout, type LayoutKey } from './file-writer.js';

export interface TableSource {
  schema: string;
  table: string;
  file: string;
}

/** What every command that writes a new version (import, publish) takes. */
export interface VersionWriteOptions {
  branch?: string;
  message?: string;
  author?: string;
  signKey?: string;
  dataset?: string;
  s3?: S3TargetOptions;
  progress?: (line: string) => void;
  /** Tests: called after each step ('data', 'catalog', 'version', 'ref') to simulate a crash. */
  step?: (name: string) => Promise<void> | void;
}

export interface ImportOptions extends VersionWriteOptions {
  tables: TableSource[];
  mode?: 'append' | 'replace';
  /** Per `schema.table`: partition keys and sort columns of the new files. */
  layout?: Record<string, TableLayout>;
  /** Split a table's new files at about this many bytes (default 512 MiB). */
  targetFileSize?: number;
  /** DuckDB memory_limit for the import (e.g. '2GB'); sorts and partitions beyond it spill to the temp folder. */
  memoryLimit?: string;
}

export interface ImportResult {
  versionId: string;
  parent: string | null;
  snapshotId: number;
  rows: Record<string, number>;
}

/** `schema.table=file` (schema defaults to main). */
export function parseTableSpec(spec: string): TableSource {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--table wants SCHEMA.TABLE=FILE, got ${JSON.stringify(spec)}`);
  const name = spec.slice(0, eq);
  const file = spec.slice(eq + 1);
  const dot = name.indexOf('.');
  const [schema, table] = dot < 0 ? ['main', name] : [name.slice(0, dot), name.slice(dot + 1)];
  if (!schema || !table || table.includes('.')) throw new Error(`--table wants SCHEMA.TABLE=FILE, got ${JSON.stringify(spec)}`);
  return { schema, table, file };
}

/** The DuckDB reader for a source file, chosen by its extension. */
export function sourceSql(file: string): string {
  const f = lit(resolve(file));
  const lower = file.toLowerCase();
  if (/\.parquet$/.test(lower)) return `read_parquet(${f})`;
  if (/\.(json|ndjson|jsonl)(\.gz|\.zst)?$/.test(lower)) return `read_json_auto(${f})`;
  if (/\.(csv|tsv|txt)(\.gz|\.zst)?$/.test(lower)) return `read_csv(${f})`;
  throw new Error(`cannot tell the format of ${file}: use .csv, .tsv, .parquet, .json, .ndjson or .jsonl`);
}

async function describe(conn: DuckDBConnection, from: string): Promise<ColDef[]> {
  const r = await conn.runAndReadAll(`SELECT * FROM ${from} LIMIT 0`);
  const names = r.columnNames();
  const types = r.columnTypes();
  return names.map((n, i) => colDef(n, types[i]!));
}

/** The SELECT list that gives the source the table's columns: cast by name; absent columns are left out (read as NULL). */
function projection(table: ColDef[], incoming: ColDef[], where: string): { select: string; cols: ColDef[] } {
  const used = new Set<string>();
  const parts: string[] = [];
  const cols: ColDef[] = [];
  for (const c of table) {
    const src = incoming.find((x) => x.name === c.name) ?? incoming.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
    if (!src) continue;
    used.add(src.name);
    // No cast when the types already agree: the projection stays a plain column (cheaper scans).
    const same = sameTree([{ ...src, name: c.name }], [c]);
    parts.push(same ? (src.name === c.name ? qi(c.name) : `${qi(src.name)} AS ${qi(c.name)}`) : `CAST(${qi(src.name)} AS ${sqlType(c)}) AS ${qi(c.name)}`);
    cols.push(c);
  }
  const extra = incoming.filter((x) => !used.has(x.name)).map((x) => x.name);
  if (extra.length) throw new Error(`${where}: column(s) ${extra.join(', ')} are not in the table; use --mode replace to change its columns`);
  if (parts.length === 0) throw new Error(`${where}: the source shares no column with the table`);
  return { select: parts.join(', '), cols };
}

/** The partition keys the table's new files get: the flag's, else the table's live spec (appends stay partitioned). */
export function partitionKeys(builder: CatalogBuilder, plan: TablePlan, layout: TableLayout, where: string): LayoutKey[] | null {
  if (layout.partitionBy?.length) {
    return layout.partitionBy.map((key) => {
      const col = findColumn(plan.columns, key.column, `${where}: --partition-by`);
      if (col.children.length > 0 || !transformFits(key, col.type)) throw new Error(`${where}: --partition-by ${key.transform}(${col.name}) does not fit a ${col.type} column`);
      return { key, col };
    });
  }
  const live = plan.newColumns ? null : builder.existingPartition(plan.schema, plan.table);
  if (!live) return null;
  return live.map((f) => {
    const col = plan.columns.find((c) => c.id === f.columnId);
    if (!col) throw new Error(`${where}: the table is partitioned on column id ${f.columnId}, which it no longer has; give --partition-by`);
    return { key: { column: col.name, transform: f.transform as Transform }, col };
  });
}

/** A top-level column by name (exact, else the only case-insensitive match). */
function findColumn(cols: ColDef[], name: string, where: string): ColDef {
  const c = cols.find((x) => x.name === name) ?? cols.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!c) throw new Error(`${where}: no column ${JSON.stringify(name)} (columns: ${cols.map((x) => x.name).join(', ')})`);
  return c;
}

export async function importData(location: string, opts: ImportOptions): Promise<ImportResult> {
  const say = opts.progress ?? (() => undefined);
  const step = opts.step ?? (() => undefined);
  const target = openTarget(location, opts.s3);
  const settings = await readSettings(target);
  const branch = opts.branch ?? 'main';
  const refKey = checkRefName('heads', branch);
  const mode = opts.mode ?? 'append';
  if (opts.tables.length === 0) throw new Error('nothing to import: give at least one --table SCHEMA.TABLE=FILE');
  // Everything checked before the first write.
  await checkSignKey(opts.signKey);
  for (const src of opts.tables) {
    await checkReadableFile('--table', src.file, `--table ${src.schema}.${src.table}=${src.file}`);
    sourceSql(src.file);
  }
  const datasetBytes = opts.dataset ? await readJsonFile(opts.dataset) : null;
  await checkWritableTarget(target, ['versions/', settings.dataDir, 'refs/']);
  const parent = await readRef(target, refKey);
  const id = uuidv7();
  const tmp = await mkdtemp(join(tmpdir(), 'fdl-import-'));
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  let journal: WriteJournal | null = null;
  try {
    await conn.run("SET TimeZone = 'UTC'"); // TIMESTAMPTZ statistics as the extension writes them
    // Sorts and partitioned writes spill here; DuckDB fixes the folder once it has been used.
    await conn.run(`SET temp_directory = ${lit(join(tmp, 'spill'))}`);
    if (opts.memoryLimit) await conn.run(`SET memory_limit = ${lit(opts.memoryLimit)}`);
    const work = join(tmp, 'work.duckdb');
    let parentDataset: Buffer | null = null;
    let parentFiles: Buffer | null = null;
    if (parent) {
      const vj = await target.read(`versions/${parent}/version.json`);
      if (!vj) throw new Error(`${refKey} points at ${parent}, which has no version.json`);
      const rec = parseVersionJson(vj.body, parent);
      const cat = rec.catalogs[0]!;
      if (cat.format.ducklake !== '1.0') throw new Error(`parent ${parent} has a DuckLake ${cat.format.ducklake} catalog; this writer extends 1.0 catalogs only`);
      const store = await readStore(target);
      await store.download(`versions/${parent}/${cat.path}`, work, { sha256: cat.sha256, expectedSize: cat.size });
      if (rec.files?.['dataset.json']) {
        const d = await target.read(`versions/${parent}/dataset.json`);
        parentDataset = d?.body ?? null;
      }
      if (rec.files?.['files.json']) parentFiles = (await target.read(`versions/${parent}/files.json`))?.body ?? null;
      await conn.run(`ATTACH ${lit(work)} AS cat`);
    } else {
      await conn.run(`ATTACH ${lit(work)} AS cat`);
      await initCatalog(conn, 'cat', dataPathOf(target, settings.dataDir));
    }
    const builder = await CatalogBuilder.open(conn, 'cat');
    journal = await WriteJournal.begin(target, id);

    // Data files first: nothing references them until the catalog does.
    const rowCounts: Record<string, number> = {};
    // sha256 of every data file goes into files.json (hashed and signed through version.json), so
    // verify can prove data files untouched; files carried over keep the parent's hashes.
    const hashes = new Map<string, string>(parentHashes(parentFiles));
    for (const src of opts.tables) {
      const where = `${src.schema}.${src.table} from ${src.file}`;
      await stat(src.file).catch(() => { throw new Error(`${where}: file not found`); });
      const from = sourceSql(src.file);
      const incoming = await describe(conn, from);
      const existing = builder.existingColumns(src.schema, src.table);
      const plan: TablePlan = builder.planTable(src.schema, src.table, mode === 'replace' || !existing ? incoming : existing, mode);
      const { select, cols } = projection(plan.columns, incoming, where);
      const layout = opts.layout?.[`${src.schema}.${src.table}`] ?? {};
      const keys = partitionKeys(builder, plan, layout, where);
      builder.setPartition(plan, keys?.map((k) => ({ columnId: k.col.id!, transform: k.key.transform })) ?? null);
      const sortBy = (layout.sortBy ?? []).map((c) => findColumn(cols, c, `${where}: --sort-by`));
      say(`writing ${src.schema}.${src.table} from ${basename(src.file)} …`);
      const t0 = Date.now();
      const outDir = target instanceof LocalTarget ? target.localPath(`${settings.dataDir}${plan.dir}.import-${process.pid}-${uuidv7()}`) : join(tmp, `out-${uuidv7()}`);
      journal.tempDir(outDir);
      const written = await writeLayout(conn, {
        source: `(SELECT ${select} FROM ${from})`, cols, keys, sortBy, targetFileSize: opts.targetFileSize ?? DEFAULT_TARGET_FILE_SIZE,
        work: join(tmp, `t${plan.tableId}-${uuidv7()}`),
        outDir,
      });
      let records = 0;
      for (const w of written) {
        const name = `ducklake-${uuidv7()}.parquet`;
        const rel = `${w.hiveDir}${name}`;
        const key = `${settings.dataDir}${plan.dir}${rel}`;
        // hashed while DuckDB wrote it (hashed-output.ts), before it is published
        hashes.set(`${plan.dir}${rel}`, w.sha256);
        plan.files.push({ name: rel, records: w.records, size: w.size, footer: w.footer, stats: w.stats, partitionValues: w.partitionValues });
        records += w.records;
        if (target instanceof LocalTarget) {
          await mkdir(dirname(target.localPath(key)), { recursive: true });
          if (!(await target.adopt(key, w.file))) throw new Error(`data file ${key} already exists`);
          journal.created(key);
        } else {
          say(`  uploading ${key} (${w.size.toLocaleString('en')} bytes) …`);
          if (!(await target.create(key, { file: w.file }))) throw new Error(`data file ${key} already exists`);
          journal.created(key);
          await rm(w.file, { force: true });
        }
      }
      await rm(outDir, { recursive: true, force: true });
      rowCounts[`${src.schema}.${src.table}`] = (rowCounts[`${src.schema}.${src.table}`] ?? 0) + records;
      const secs = (Date.now() - t0) / 1000;
      say(`  ${records.toLocaleString('en')} rows in ${written.length} file(s), ${secs.toFixed(1)} s (${Math.round(records / Math.max(secs, 0.001)).toLocaleString('en')} rows/s)`);
    }
    await step('data');

    const snapshotId = await builder.commit({ author: opts.author, message: opts.message });
    await conn.run('DETACH cat');
    // A compacted copy: the same rows in a fresh file with small blocks (as the fixtures' catalogs).
    const final = join(tmp, 'ducklake.duckdb');
    await conn.run(`ATTACH ${lit(work)} AS w (READ_ONLY)`);
    await conn.run(`ATTACH ${lit(final)} AS f (BLOCK_SIZE 16384)`);
    await conn.run('COPY FROM DATABASE w TO f');
    await conn.run('DETACH w');
    const store = await readStore(target);
    const filesJson = await buildFilesJson(conn, 'f', snapshotId, async (rel) => hashes.get(rel) ?? (await hashStored(target, store, `${settings.dataDir}${rel}`, tmp)));
    await conn.run('DETACH f');
    say(`writing version ${id} (snapshot ${snapshotId}) …`);
    await writeVersion(
      target,
      {
        id, repository: settings.id, parent, branch, catalogFile: final, formatVersion: '1.0', snapshotId,
        dataset: datasetBytes ?? parentDataset ?? Buffer.from('{}\n'),
        filesJson, author: opts.author, message: opts.message, signKey: opts.signKey,
      },
      step,
      journal,
    );
    await journal.commit();
    say(`${refKey} → ${id}${parent ? ` (was ${parent})` : ''}`);
    await step('ref');
    return { versionId: id, parent, snapshotId, rows: rowCounts };
  } catch (e) {
    await journal?.rollback(refKey);
    throw e;
  } finally {
    conn.closeSync();
    instance.closeSync();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Where the extension would look without OVERRIDE_DATA_PATH; FDL readers ignore it. */
export function dataPathOf(target: WriteTarget, dataDir: string): string {
  if (target instanceof S3Target) return `${target.location}${dataDir}`;
  return join(target.location, dataDir) + '/';
}

/** path → sha256 from a files.json, data and delete files (ours carry both; older ones may not). */
export function parentHashes(filesJson: Buffer | null): [string, string][] {
  if (!filesJson) return [];
  try {
    const j = JSON.parse(filesJson.toString('utf8')) as { tables?: Record<string, { files?: Record<string, unknown>[] }> };
    const out: [string, string][] = [];
    for (const t of Object.values(j.tables ?? {})) {
      for (const f of t.files ?? []) {
        if (typeof f.path === 'string' && typeof f.sha256 === 'string') out.push([f.path, f.sha256]);
        if (typeof f.delete_file === 'string' && typeof f.delete_file_sha256 === 'string') out.push([f.delete_file, f.delete_file_sha256]);
      }
    }
    return out;
  } catch {
    return [];
  }
}

/** files.json (spec Part 3): live data files per table at the frozen snapshot, paths relative to data_dir. */
export async function buildFilesJson(conn: DuckDBConnection, alias: string, S: number, sha256Of: (rel: string) => Promise<string | undefined> = async () => undefined): Promise<unknown> {
  const m = qi(alias);
  const live = (a: string) => `${a}.begin_snapshot <= ${S} AND (${a}.end_snapshot IS NULL OR ${a}.end_snapshot > ${S})`;
  const r = await conn.runAndReadAll(`
    SELECT s.schema_name, t.table_name, coalesce(s.path, '') || coalesce(t.path, '') AS dir, d.path, d.file_size_bytes, d.record_count, x.path AS del, x.file_size_bytes AS del_size
    FROM ${m}.ducklake_table t JOIN ${m}.ducklake_schema s ON s.schema_id = t.schema_id AND ${live('s')}
    LEFT JOIN ${m}.ducklake_data_file d ON d.table_id = t.table_id AND ${live('d')}
    LEFT JOIN ${m}.ducklake_delete_file x ON x.data_file_id = d.data_file_id AND ${live('x')}
    WHERE ${live('t')} ORDER BY s.schema_name, t.table_name, d.data_file_id`);
  const tables: Record<string, { files: unknown[] }> = {};
  for (const row of r.getRowObjectsJson()) {
    const name = `${String(row.schema_name)}.${String(row.table_name)}`;
    const t = (tables[name] ??= { files: [] });
    if (row.path === null) continue;
    const dir = String(row.dir);
    const rel = dir + String(row.path);
    const sha256 = await sha256Of(rel);
    const del = row.del !== null ? dir + String(row.del) : null;
    const delSha256 = del ? await sha256Of(del) : undefined;
    t.files.push({
      path: rel, size: Number(row.file_size_bytes), rows: Number(row.record_count), ...(sha256 ? { sha256 } : {}),
      ...(del ? { delete_file: del, delete_file_size: Number(row.del_size), ...(delSha256 ? { delete_file_sha256: delSha256 } : {}) } : {}),
    });
  }
  return { snapshot_id: S, tables };
}

