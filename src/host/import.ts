/**
 * fdl import: source files → Parquet data files with field ids → parent catalog + one snapshot →
 * dataset.json, files.json, signature, version.json (last) → conditional branch move → refs.json.
 * Until the branch moves, nothing a reader resolves points at the new version; a crash at any step
 * leaves at most unreferenced files.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseVersionJson } from '../resolver/records.js';
import { CatalogBuilder, initCatalog, type TablePlan } from './catalog-writer.js';
import { colDef, lit, qi, sameTree, sqlType, type ColDef } from './coltypes.js';
import { compactCatalog, finishVersion, preflightVersion } from './version-writer.js';
import { readStore } from './repo.js';
import { LocalTarget, S3Target, type S3TargetOptions, type WriteTarget } from './target.js';
import { uuidv7 } from './uuid.js';
import { checkReadableFile } from './preflight.js';
import { parentHashes } from './files-json.js';
import { Interrupted, interruptedBy } from './interrupt.js';
import { WriteJournal } from './write-journal.js';
import { DEFAULT_TARGET_FILE_SIZE, transformFits, type TableLayout, type Transform } from './layout.js';
import { writeLayout, WriteFailure, type LayoutKey } from './file-writer.js';
import { clearDeadWorkFolders } from './work-folder.js';
import { openWorkspace } from './workspace.js';

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
  /** OpenSSH allowed_signers: --sign-key must be a key it trusts for namespace fdl (checked before writing). */
  allowedSigners?: string;
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
  if (!schema || !table || table.includes('.'))
    throw new Error(`--table wants SCHEMA.TABLE=FILE, got ${JSON.stringify(spec)}`);
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
    const src =
      incoming.find((x) => x.name === c.name) ?? incoming.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
    if (!src) continue;
    used.add(src.name);
    // No cast when the types already agree: the projection stays a plain column (cheaper scans).
    const same = sameTree([{ ...src, name: c.name }], [c]);
    parts.push(
      same
        ? src.name === c.name
          ? qi(c.name)
          : `${qi(src.name)} AS ${qi(c.name)}`
        : `CAST(${qi(src.name)} AS ${sqlType(c)}) AS ${qi(c.name)}`,
    );
    cols.push(c);
  }
  const extra = incoming.filter((x) => !used.has(x.name)).map((x) => x.name);
  if (extra.length)
    throw new Error(
      `${where}: column(s) ${extra.join(', ')} are not in the table; use --mode replace to change its columns`,
    );
  if (parts.length === 0) throw new Error(`${where}: the source shares no column with the table`);
  return { select: parts.join(', '), cols };
}

/** The partition keys the table's new files get: the flag's, else the table's live spec (appends stay partitioned). */
export function partitionKeys(
  builder: CatalogBuilder,
  plan: TablePlan,
  layout: TableLayout,
  where: string,
): LayoutKey[] | null {
  if (layout.partitionBy?.length) {
    return layout.partitionBy.map((key) => {
      const col = findColumn(plan.columns, key.column, `${where}: --partition-by`);
      if (col.children.length > 0 || !transformFits(key, col.type))
        throw new Error(`${where}: --partition-by ${key.transform}(${col.name}) does not fit a ${col.type} column`);
      return { key, col };
    });
  }
  const live = plan.newColumns ? null : builder.existingPartition(plan.schema, plan.table);
  if (!live) return null;
  return live.map((f) => {
    const col = plan.columns.find((c) => c.id === f.columnId);
    if (!col)
      throw new Error(
        `${where}: the table is partitioned on column id ${f.columnId}, which it no longer has; give --partition-by`,
      );
    return { key: { column: col.name, transform: f.transform as Transform }, col };
  });
}

/** A top-level column by name (exact, else the only case-insensitive match). */
function findColumn(cols: ColDef[], name: string, where: string): ColDef {
  const c = cols.find((x) => x.name === name) ?? cols.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!c)
    throw new Error(`${where}: no column ${JSON.stringify(name)} (columns: ${cols.map((x) => x.name).join(', ')})`);
  return c;
}

export async function importData(location: string, opts: ImportOptions): Promise<ImportResult> {
  const say = opts.progress ?? (() => undefined);
  const step = opts.step ?? (() => undefined);
  const mode = opts.mode ?? 'append';
  if (opts.tables.length === 0) throw new Error('nothing to import: give at least one --table SCHEMA.TABLE=FILE');
  // Everything checked before the first write.
  const vt = await preflightVersion(location, opts, async () => {
    for (const src of opts.tables) {
      await checkReadableFile('--table', src.file, `--table ${src.schema}.${src.table}=${src.file}`);
      sourceSql(src.file);
    }
  });
  const { target, settings, parent, refKey } = vt;
  const id = uuidv7();
  // work folders of imports killed before they could clean up (SIGKILL, the clean-up deadline) go first
  await clearDeadWorkFolders({ report: say });
  const ws = await openWorkspace('import');
  const { tmp, conn } = ws;
  let journal: WriteJournal | null = null;
  try {
    await conn.run("SET TimeZone = 'UTC'"); // TIMESTAMPTZ statistics as the extension writes them
    // Sorts and partitioned writes spill here; DuckDB fixes the folder once it has been used.
    await conn.run(`SET temp_directory = ${lit(join(tmp, 'spill'))}`);
    if (opts.memoryLimit) await conn.run(`SET memory_limit = ${lit(opts.memoryLimit)}`);
    const work = join(tmp, 'work.duckdb');
    let parentDataset: Buffer | null = null;
    let parentFiles: Buffer | null = null;
    const store = await readStore(target);
    if (parent) {
      const vj = await target.read(`versions/${parent}/version.json`);
      if (!vj) throw new Error(`${refKey} points at ${parent}, which has no version.json`);
      const rec = parseVersionJson(vj.body, parent);
      const cat = rec.catalogs[0]!;
      if (cat.format.ducklake !== '1.0')
        throw new Error(
          `parent ${parent} has a DuckLake ${cat.format.ducklake} catalog; this writer extends 1.0 catalogs only`,
        );
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
      await stat(src.file).catch(() => {
        throw new Error(`${where}: file not found`);
      });
      const from = sourceSql(src.file);
      const incoming = await readSource(conn, from, src.file, () => describe(conn, from));
      const existing = builder.existingColumns(src.schema, src.table);
      const plan: TablePlan = builder.planTable(
        src.schema,
        src.table,
        mode === 'replace' || !existing ? incoming : existing,
        mode,
      );
      const { select, cols } = projection(plan.columns, incoming, where);
      const layout = opts.layout?.[`${src.schema}.${src.table}`] ?? {};
      const keys = partitionKeys(builder, plan, layout, where);
      builder.setPartition(plan, keys?.map((k) => ({ columnId: k.col.id!, transform: k.key.transform })) ?? null);
      const sortBy = (layout.sortBy ?? []).map((c) => findColumn(cols, c, `${where}: --sort-by`));
      say(`writing ${src.schema}.${src.table} from ${basename(src.file)} …`);
      const t0 = Date.now();
      let outDir = join(tmp, `out-${uuidv7()}`);
      if (target instanceof LocalTarget) {
        const rel = `${settings.dataDir}${plan.dir}.import-${process.pid}-${uuidv7()}`;
        await journal.tempDir(rel);
        outDir = target.localPath(rel);
      }
      const written = await readSource(conn, from, src.file, () =>
        writeLayout(conn, {
          source: `(SELECT ${select} FROM ${from})`,
          cols,
          keys,
          sortBy,
          targetFileSize: opts.targetFileSize ?? DEFAULT_TARGET_FILE_SIZE,
          work: join(tmp, `t${plan.tableId}-${uuidv7()}`),
          outDir,
          label: `${src.schema}.${src.table}'s data files in ${target instanceof LocalTarget ? target.location : tmp}`,
        }),
      );
      let records = 0;
      for (const w of written) {
        const name = `ducklake-${uuidv7()}.parquet`;
        const rel = `${w.hiveDir}${name}`;
        const key = `${settings.dataDir}${plan.dir}${rel}`;
        // hashed while DuckDB wrote it (hashed-output.ts), before it is published
        hashes.set(`${plan.dir}${rel}`, w.sha256);
        plan.files.push({
          name: rel,
          records: w.records,
          size: w.size,
          footer: w.footer,
          stats: w.stats,
          partitionValues: w.partitionValues,
        });
        records += w.records;
        await journal.intend(key);
        if (target instanceof LocalTarget) {
          await mkdir(dirname(target.localPath(key)), { recursive: true });
          if (!(await target.adopt(key, w.file)))
            throw journal.forget(key, new Error(`data file ${key} already exists`));
        } else {
          say(`  uploading ${key} (${w.size.toLocaleString('en')} bytes) …`);
          if (!(await target.create(key, { file: w.file })))
            throw journal.forget(key, new Error(`data file ${key} already exists`));
          await rm(w.file, { force: true });
        }
      }
      if (target instanceof LocalTarget) await target.removeTree(outDir.slice(target.location.length + 1));
      else await rm(outDir, { recursive: true, force: true });
      rowCounts[`${src.schema}.${src.table}`] = (rowCounts[`${src.schema}.${src.table}`] ?? 0) + records;
      const secs = (Date.now() - t0) / 1000;
      say(
        `  ${records.toLocaleString('en')} rows in ${written.length} file(s), ${secs.toFixed(1)} s (${Math.round(records / Math.max(secs, 0.001)).toLocaleString('en')} rows/s)`,
      );
    }
    await step('data');

    const snapshotId = await builder.commit({ author: opts.author, message: opts.message });
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
    return { versionId: id, parent, snapshotId, rows: rowCounts };
  } catch (e) {
    await journal?.rollback(refKey);
    throw e;
  } finally {
    await ws.close();
  }
}

/**
 * Runs a step that reads a source file. DuckDB's errors about the file (a malformed CSV line, a
 * type it cannot convert) are reported with the file's name and DuckDB's own explanation; the SQL
 * we generated around it is not the user's concern and is left out.
 */
async function readSource<T>(conn: DuckDBConnection, from: string, file: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof Interrupted || e instanceof WriteFailure || interruptedBy()) throw e;
    throw new Error(`${file}: ${sourceError((e as Error).message, from)}`);
  }
}

/**
 * DuckDB's message without the generated SQL it may quote (LINE 1: COPY …, the caret) and without
 * its "Possible fixes" (read_csv options fdl does not take); the offending line it quotes stays.
 */
export function sourceError(message: string, from: string): string {
  const cut = message.search(/\n\s*Possible fixes:/);
  const lines = (cut >= 0 ? message.slice(0, cut) : message).split('\n');
  return lines
    .filter((l) => !l.includes(from) && !/^\s*LINE \d+:/.test(l) && !/^\s*\^\s*$/.test(l))
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .join('\n');
}

/** Where the extension would look without OVERRIDE_DATA_PATH; FDL readers ignore it. */
export function dataPathOf(target: WriteTarget, dataDir: string): string {
  if (target instanceof S3Target) return `${target.location}${dataDir}`;
  return join(target.location, dataDir) + '/';
}
