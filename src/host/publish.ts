/**
 * fdl publish: freeze an existing DuckDB-file DuckLake catalog (made by any DuckLake writer) into a
 * new version. The working catalog is attached READ_ONLY and copied whole (every ducklake_* table,
 * the dynamic ducklake_inlined_data_* / ducklake_inlined_delete_* tables too) into a fresh DuckDB
 * file; every check below runs on that copy, so what was checked is exactly what is frozen:
 *   - catalog version 1.0 or 0.4;
 *   - every data and delete file visible at any snapshot is relative (schema path + table path +
 *     file path, each path_is_relative) and stays under data_dir (no `..`, scheme, glob characters);
 *   - every such file is in the repository with the catalog's file_size_bytes (missing files are
 *     uploaded from --data-from when given, else the publish is refused).
 * Then dataset.json, files.json, signature, version.json (last), the conditional branch move and
 * refs.json, exactly as fdl import does. Nothing a reader resolves points at the version until the
 * branch moves.
 */
import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { pathProblem } from '../lake/paths.js';
import { notOneSelect, replaceCatalogPlaceholder } from '../lake/index.js';
import { parseVersionJson } from '../resolver/records.js';
import { lit, qi } from './coltypes.js';
import type { VersionWriteOptions } from './import.js';
import { parentHashes } from './files-json.js';
import { finishVersion, preflightVersion } from './version-writer.js';
import { readStore } from './repo.js';
import { createHash } from 'node:crypto';
import { uuidv7 } from './uuid.js';
import { checkReadableDir, checkReadableFile } from './preflight.js';
import { WriteJournal } from './write-journal.js';
import { openWorkspace } from './workspace.js';
import { rows as rowsOf, type Row } from '../lake/sql.js';

export const PUBLISHABLE_VERSIONS = ['1.0', '0.4'];

export interface PublishOptions extends VersionWriteOptions {
  /** The working catalog: a DuckDB file (a `ducklake:` prefix is accepted and stripped). */
  catalog: string;
  /** A local folder laid out like data_dir: files missing from the repository are uploaded from here. */
  dataFrom?: string;
}

export interface PublishResult {
  versionId: string;
  parent: string | null;
  snapshotId: number;
  formatVersion: string;
  /** Data and delete files the catalog references (any snapshot), relative to data_dir. */
  files: number;
  /** Of those, copied into the repository from --data-from. */
  uploaded: string[];
}

/** One data or delete file the catalog references, resolved against data_dir. */
export interface ReferencedFile {
  kind: 'data' | 'delete';
  id: number;
  table: string;
  rel: string;
  size: number;
}

const BIG = '9223372036854775807';

/** The DuckLake format version of an attached catalog; refuses versions this project cannot serve. */
export async function catalogVersion(conn: DuckDBConnection, alias: string): Promise<string> {
  const m = qi(alias);
  const has = await rowsOf(
    conn,
    `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = ${lit(alias)} AND schema_name = 'main' AND table_name = 'ducklake_metadata'`,
  );
  if (Number(has[0]?.n) === 0) throw new Error('not a DuckLake catalog: no main.ducklake_metadata table');
  const r = await rowsOf(conn, `SELECT value FROM ${m}.ducklake_metadata WHERE key = 'version' AND scope IS NULL`);
  const v = r.length ? String(r[0]!.value) : '(none)';
  if (!PUBLISHABLE_VERSIONS.includes(v))
    throw new Error(
      `DuckLake catalog version ${v} cannot be published (supported: ${PUBLISHABLE_VERSIONS.join(', ')})`,
    );
  return v;
}

/**
 * Every data and delete file visible at any snapshot, with its path resolved as readers resolve it:
 * the schema's and table's paths (the rows live while the file is) followed by the file's path, all
 * relative. Throws naming the file on an absolute path or a path that could leave data_dir.
 */
export async function referencedFiles(conn: DuckDBConnection, alias: string): Promise<ReferencedFile[]> {
  const m = qi(alias);
  const files = await rowsOf(
    conn,
    `
    SELECT 'data' AS kind, data_file_id AS id, table_id, path, path_is_relative AS rel, file_size_bytes AS size, begin_snapshot AS b, coalesce(end_snapshot, ${BIG}) AS e
    FROM ${m}.ducklake_data_file WHERE end_snapshot IS NULL OR end_snapshot > begin_snapshot
    UNION ALL
    SELECT 'delete', delete_file_id, table_id, path, path_is_relative, file_size_bytes, begin_snapshot, coalesce(end_snapshot, ${BIG})
    FROM ${m}.ducklake_delete_file WHERE end_snapshot IS NULL OR end_snapshot > begin_snapshot
    ORDER BY kind, id`,
  );
  const tables = await rowsOf(
    conn,
    `SELECT table_id, schema_id, table_name, path, path_is_relative AS rel, begin_snapshot AS b, coalesce(end_snapshot, ${BIG}) AS e FROM ${m}.ducklake_table ORDER BY begin_snapshot`,
  );
  const schemas = await rowsOf(
    conn,
    `SELECT schema_id, schema_name, path, path_is_relative AS rel, begin_snapshot AS b, coalesce(end_snapshot, ${BIG}) AS e FROM ${m}.ducklake_schema ORDER BY begin_snapshot`,
  );
  const big = (x: unknown) => BigInt(String(x));
  const overlaps = (a: Row, b0: bigint, e0: bigint) => big(a.b) < e0 && big(a.e) > b0;
  const out: ReferencedFile[] = [];
  for (const f of files) {
    const fb = big(f.b);
    const fe = big(f.e);
    const what = `${String(f.kind)} file ${JSON.stringify(String(f.path))} (${f.kind === 'data' ? 'data_file_id' : 'delete_file_id'} ${String(f.id)})`;
    // The table rows live while the file is (a rename or a path change gives several); none: any row of the table.
    const sameTable = tables.filter((t) => String(t.table_id) === String(f.table_id));
    if (sameTable.length === 0)
      throw new Error(`${what} belongs to table_id ${String(f.table_id)}, which the catalog does not have`);
    const liveTables = sameTable.filter((t) => overlaps(t, fb, fe));
    const prefixes = new Map<string, string>();
    for (const t of liveTables.length ? liveTables : sameTable) {
      const tb = big(t.b) > fb ? big(t.b) : fb;
      const te = big(t.e) < fe ? big(t.e) : fe;
      const sameSchema = schemas.filter((s) => String(s.schema_id) === String(t.schema_id));
      const liveSchemas = sameSchema.filter((s) => overlaps(s, tb, te));
      const pick = liveSchemas.length ? liveSchemas : sameSchema;
      if (pick.length === 0)
        throw new Error(
          `${what}: table ${String(t.table_name)} belongs to schema_id ${String(t.schema_id)}, which the catalog does not have`,
        );
      for (const s of pick) {
        const name = `${String(s.schema_name)}.${String(t.table_name)}`;
        let prefix = '';
        for (const [part, label] of [
          [s, `schema ${String(s.schema_name)}`],
          [t, `table ${name}`],
        ] as const) {
          if (part.path === null) continue;
          if (part.rel === false)
            throw new Error(
              `${what} of ${name}: the ${label} has an absolute path ${JSON.stringify(String(part.path))} (path_is_relative = false); publish needs every path relative to data_dir`,
            );
          prefix += String(part.path);
        }
        prefixes.set(prefix, name);
      }
    }
    for (const [prefix, table] of prefixes) {
      if (f.rel !== true)
        throw new Error(
          `${what} of ${table} is stored with an absolute path (path_is_relative = false): ${String(f.path)}; publish needs every data and delete file relative to data_dir`,
        );
      const rel = prefix + String(f.path);
      const problem = pathProblem(rel);
      if (problem) throw new Error(`${what} of ${table} is refused: ${problem}`);
      out.push({ kind: f.kind as 'data' | 'delete', id: Number(f.id), table, rel, size: Number(f.size) });
    }
  }
  return out;
}

/** Attach the working catalog READ_ONLY and copy it whole into `dest` (fresh file, small blocks, checkpointed, no WAL). */
async function compactCopy(conn: DuckDBConnection, working: string, dest: string): Promise<void> {
  try {
    await conn.run(`ATTACH ${lit(working)} AS w (READ_ONLY)`);
  } catch (e) {
    throw new Error(`cannot open the working catalog ${working} read-only: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    await catalogVersion(conn, 'w');
    // Only the DuckLake metadata may be frozen: anything else in the file would be served to nobody
    // and hashed into the version, so it is refused rather than silently dropped.
    const others = await rowsOf(
      conn,
      `
      SELECT schema_name || '.' || table_name AS n FROM duckdb_tables() WHERE database_name = 'w' AND NOT (schema_name = 'main' AND table_name LIKE 'ducklake\\_%' ESCAPE '\\')
      UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE database_name = 'w' AND NOT internal
      UNION ALL SELECT schema_name || '.' || sequence_name FROM duckdb_sequences() WHERE database_name = 'w'
      UNION ALL SELECT schema_name || '.' || function_name FROM duckdb_functions() WHERE database_name = 'w' AND NOT internal`,
    );
    if (others.length)
      throw new Error(
        `the working catalog ${working} holds objects that are not DuckLake metadata tables: ${others
          .map((o) => String(o.n))
          .slice(0, 10)
          .join(', ')}`,
      );
    // A view is one SELECT: the gateway would skip any other (lake/one-statement.ts), so it is refused here.
    const views = await rowsOf(
      conn,
      `SELECT s.schema_name || '.' || v.view_name AS n, v.sql FROM w.ducklake_view v JOIN w.ducklake_schema s USING (schema_id)
       WHERE v.end_snapshot IS NULL AND s.end_snapshot IS NULL`,
    );
    for (const v of views) {
      const problem = await notOneSelect(conn, replaceCatalogPlaceholder(String(v.sql), 'w'));
      if (problem) throw new Error(`view ${String(v.n)} of the working catalog is refused: ${problem}`);
    }
    await conn.run(`ATTACH ${lit(dest)} AS f (BLOCK_SIZE 16384)`);
    await conn.run('COPY FROM DATABASE w TO f');
    await conn.run('CHECKPOINT f');
    await conn.run('DETACH f');
  } finally {
    await conn.run('DETACH IF EXISTS w').catch(() => undefined);
  }
  if (
    await access(`${dest}.wal`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`internal error: the frozen catalog copy left a WAL (${dest}.wal)`);
}

export async function publishCatalog(location: string, opts: PublishOptions): Promise<PublishResult> {
  const say = opts.progress ?? (() => undefined);
  const step = opts.step ?? (() => undefined);
  const working = resolve(opts.catalog.replace(/^ducklake:/i, ''));
  const st = await stat(working).catch(() => null);
  if (!st?.isFile())
    throw new Error(`working catalog ${opts.catalog} not found (give a DuckDB file: --catalog WORKING.ducklake)`);
  await checkReadableFile('--catalog', working);
  // Everything checked before the first write.
  const vt = await preflightVersion(location, opts, async () => {
    if (opts.dataFrom) await checkReadableDir('--data-from', opts.dataFrom);
  });
  const { target, settings, parent, refKey } = vt;
  const id = uuidv7();
  const ws = await openWorkspace('publish');
  const { tmp, conn } = ws;
  let journal: WriteJournal | null = null;
  try {
    await conn.run("SET TimeZone = 'UTC'");
    say(`copying ${working} …`);
    const final = join(tmp, 'ducklake.duckdb');
    await compactCopy(conn, working, final);
    await conn.run(`ATTACH ${lit(final)} AS f (READ_ONLY)`);
    const formatVersion = await catalogVersion(conn, 'f');
    const snap = await rowsOf(conn, 'SELECT max(snapshot_id) AS s FROM f.ducklake_snapshot');
    const snapshotId = Number(snap[0]?.s);
    if (snap[0]?.s === null || !Number.isFinite(snapshotId))
      throw new Error(`the working catalog ${working} has no snapshot`);

    // Every file any snapshot references: relative, under data_dir, present with the recorded size.
    const refs = await referencedFiles(conn, 'f');
    const byRel = new Map<string, ReferencedFile>();
    for (const f of refs) {
      const seen = byRel.get(f.rel);
      if (seen && seen.size !== f.size)
        throw new Error(
          `${f.rel} is recorded with ${seen.size} bytes (${seen.kind} file of ${seen.table}) and with ${f.size} bytes (${f.kind} file of ${f.table})`,
        );
      byRel.set(f.rel, f);
    }
    const store = await readStore(target);
    const missing: ReferencedFile[] = [];
    for (const f of byRel.values()) {
      const key = `${settings.dataDir}${f.rel}`;
      const h = await store.head(key);
      if (!h) missing.push(f);
      else if (h.size !== f.size)
        throw new Error(
          `${f.kind} file ${key} of ${f.table} has ${h.size} bytes in ${target.location}, the catalog records ${f.size}`,
        );
    }
    const uploaded: string[] = [];
    const hashes = new Map<string, string>();
    if (missing.length && !opts.dataFrom) {
      const list = missing
        .slice(0, 5)
        .map((f) => `${settings.dataDir}${f.rel} (${f.kind} file of ${f.table})`)
        .join(', ');
      throw new Error(
        `${missing.length} file(s) the catalog references are not in ${target.location}: ${list}${missing.length > 5 ? ', …' : ''}; copy them there or give --data-from DIR`,
      );
    }
    // Check every source first, so that a refused publish writes nothing, not even its pending marker.
    const sources: [ReferencedFile, string][] = [];
    for (const f of missing) {
      const src = join(resolve(opts.dataFrom!), f.rel);
      const s = await stat(src).catch(() => null);
      if (!s?.isFile())
        throw new Error(
          `${f.kind} file ${settings.dataDir}${f.rel} of ${f.table} is neither in ${target.location} nor in --data-from ${opts.dataFrom}`,
        );
      if (s.size !== f.size) throw new Error(`${src} has ${s.size} bytes, the catalog records ${f.size} for ${f.rel}`);
      sources.push([f, src]);
    }
    journal = await WriteJournal.begin(target, id);
    for (const [f, src] of sources) {
      const key = `${settings.dataDir}${f.rel}`;
      say(`uploading ${key} (${f.size.toLocaleString('en')} bytes) …`);
      // hashed while uploading (one read of the source)
      const hash = createHash('sha256');
      await journal.intend(key);
      if (!(await target.create(key, { file: src, hash }))) {
        journal.forget(key, new Error('taken'));
        const h = await store.head(key);
        if (!h || h.size !== f.size)
          throw new Error(
            `${key} appeared in ${target.location} while publishing, with ${h?.size ?? '?'} bytes (the catalog records ${f.size})`,
          );
      } else {
        hashes.set(f.rel, hash.digest('hex'));
      }
      uploaded.push(f.rel);
    }

    // Parent: hashes of carried-over files and the default dataset.json.
    let parentDataset: Buffer | null = null;
    if (parent) {
      const vj = await target.read(`versions/${parent}/version.json`);
      if (!vj) throw new Error(`${refKey} points at ${parent}, which has no version.json`);
      const rec = parseVersionJson(vj.body, parent);
      if (rec.files?.['dataset.json'])
        parentDataset = (await target.read(`versions/${parent}/dataset.json`))?.body ?? null;
      if (rec.files?.['files.json'])
        for (const [p, h] of parentHashes((await target.read(`versions/${parent}/files.json`))?.body ?? null))
          if (!hashes.has(p)) hashes.set(p, h);
    }
    // Files already in the repository (and not hashed by the parent) are read once to hash them.
    await finishVersion(conn, {
      vt,
      id,
      journal,
      catalogFile: final,
      formatVersion,
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
      detail: `(DuckLake ${formatVersion}, snapshot ${snapshotId}, ${byRel.size} file(s))`,
    });
    return { versionId: id, parent, snapshotId, formatVersion, files: byRel.size, uploaded };
  } catch (e) {
    await journal?.rollback(refKey);
    throw e;
  } finally {
    await ws.close();
  }
}
