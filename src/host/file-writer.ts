/**
 * Writes one table's rows as DuckLake data files: hive folders per partition, sorted, split at a
 * target size, with field ids and per-file statistics from DuckDB's RETURN_STATS.
 *
 * DuckDB cannot split partitioned output by size in one COPY, so a partitioned write takes two
 * streaming passes: the source is first spread into staging partitions (keys derived in SQL, not
 * written), then each partition is sorted and written in files of the target size. Both passes
 * stream and spill to disk; nothing holds the whole source in memory. The final files are hashed
 * while DuckDB writes them (hashed-output.ts), for files.json.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fieldIds, lit, qi, type ColDef } from './coltypes.js';
import { hiveKey, type PartitionKey } from './layout.js';
import { HashedOutput, OutputWriteError, PIPE_PATTERN } from './hashed-output.js';

export interface LayoutKey {
  key: PartitionKey;
  col: ColDef;
}

export interface LayoutWrite {
  /** A SELECT (in parentheses) giving the table's columns. */
  source: string;
  cols: ColDef[];
  keys: LayoutKey[] | null;
  sortBy: ColDef[];
  targetFileSize: number;
  /** Scratch folder for the staging partitions (removed after). */
  work: string;
  /** Where the final files go (one subfolder per partition). */
  outDir: string;
  /** What a write failure names, e.g. `main.t's data files in /srv/lake` (default: outDir). */
  label?: string;
}

/** A write that failed for want of space or another file-system reason, said plainly (never blamed on the source). */
export class WriteFailure extends Error {}

/**
 * The error to report for a failed write: a real file the pipe thread could not write (the cause
 * of DuckDB's "Broken pipe"), or DuckDB's own write running out of space (staging, spill), says
 * what could not be written where; anything else is returned unchanged.
 */
export function writeFailure(e: unknown, label: string): unknown {
  const full = (detail: string) =>
    new WriteFailure(`no space left on device: cannot write ${label}${detail ? ` (${detail})` : ''}`);
  if (e instanceof OutputWriteError) {
    if (e.code === 'ENOSPC') return full('');
    if (e.code === 'EDQUOT') return new WriteFailure(`disk quota exceeded: cannot write ${label}`);
    return new WriteFailure(`cannot write ${label}: ${e.message}`);
  }
  const msg = (e as Error)?.message ?? '';
  if (/no space left on device/i.test(msg)) return full(/"([^"]+)"/.exec(msg)?.[1] ?? '');
  return e;
}

export interface LayoutFile {
  file: string;
  /** `k=v/…/` under the table folder, '' when unpartitioned. */
  hiveDir: string;
  partitionValues?: (string | null)[];
  records: number;
  size: number;
  /** Hashed while DuckDB wrote it (hashed-output.ts). */
  sha256: string;
  footer: number;
  stats: Map<string, Map<string, string>>;
}

type StatsRow = {
  filename: unknown;
  count: unknown;
  file_size_bytes: unknown;
  footer_size_bytes: unknown;
  column_statistics: { key: string; value: { key: string; value: string }[] }[] | null;
};

const STAGE_KEY = (i: number) => `__fdl_key${i}`;
/** DuckDB's folder value for a NULL key. */
const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export async function writeLayout(conn: DuckDBConnection, w: LayoutWrite): Promise<LayoutFile[]> {
  try {
    return await layoutFiles(conn, w);
  } catch (e) {
    throw writeFailure(e, w.label ?? w.outDir);
  }
}

async function layoutFiles(conn: DuckDBConnection, w: LayoutWrite): Promise<LayoutFile[]> {
  await mkdir(w.work, { recursive: true });
  await mkdir(dirname(w.outDir), { recursive: true });
  // Order matters only when sorting; otherwise DuckDB may write in parallel and stream freely.
  await conn.run(`SET preserve_insertion_order = ${w.sortBy.length > 0}`);
  try {
    if (!w.keys || w.keys.length === 0) return await writeFiles(conn, w, w.source, w.outDir, '', undefined);
    const stage = `${w.work}/stage`;
    const keyExprs = w.keys.map(
      (k, i) =>
        `${k.key.transform === 'identity' ? qi(k.col.name) : `${k.key.transform}(${qi(k.col.name)})`} AS ${STAGE_KEY(i)}`,
    );
    await conn.run(
      `COPY (SELECT *, ${keyExprs.join(', ')} FROM ${w.source}) TO ${lit(stage)} ` +
        `(FORMAT parquet, PARTITION_BY (${w.keys.map((_, i) => STAGE_KEY(i)).join(', ')}), FILENAME_PATTERN 'stage_{uuid}')`,
    );
    const out: LayoutFile[] = [];
    await mkdir(w.outDir, { recursive: true });
    for (const dir of await leafDirs(stage)) {
      const segs = relative(stage, dir).split(sep);
      const values = segs.map((s) => s.slice(s.indexOf('=') + 1));
      const partitionValues = values.map((v) => (v === NULL_PARTITION ? null : decodeURIComponent(v)));
      const hiveDir = w.keys.map((k, i) => `${encodeURIComponent(hiveKey(k.key))}=${values[i]}/`).join('');
      const part = `(SELECT * FROM read_parquet(${lit(`${dir}/*.parquet`)}, hive_partitioning := false))`;
      out.push(...(await writeFiles(conn, w, part, `${w.outDir}/${out.length}`, hiveDir, partitionValues)));
      await rm(dir, { recursive: true, force: true }); // staging space is given back partition by partition
    }
    return out;
  } finally {
    await rm(w.work, { recursive: true, force: true });
  }
}

async function writeFiles(
  conn: DuckDBConnection,
  w: LayoutWrite,
  from: string,
  outDir: string,
  hiveDir: string,
  partitionValues: (string | null)[] | undefined,
): Promise<LayoutFile[]> {
  const list = w.cols.map((c) => qi(c.name)).join(', ');
  const order = w.sortBy.length ? ` ORDER BY ${w.sortBy.map((c) => qi(c.name)).join(', ')}` : '';
  // DuckDB writes into pipes; the real files are written (and hashed) from them in outDir.
  const pipes = await HashedOutput.open(`${outDir}/.pipes`, outDir);
  let rows: StatsRow[];
  // DuckDB 1.5.6 splits a sorted COPY by size on several threads, and neighbouring files then
  // overlap in their sort key (seen as 1 run in 8 on 2 threads); one thread writes them in order.
  const threads = w.sortBy.length ? await oneThread(conn) : null;
  try {
    const r = await conn.runAndReadAll(
      `COPY (SELECT ${list} FROM ${from}${order}) TO ${lit(pipes.pipeDir)} ` +
        `(FORMAT parquet, FIELD_IDS ${fieldIds(w.cols)}, FILE_SIZE_BYTES ${w.targetFileSize}, FILENAME_PATTERN '${PIPE_PATTERN}', OVERWRITE_OR_IGNORE, RETURN_STATS)`,
    );
    rows = r.getRowObjectsJson() as unknown as StatsRow[];
  } catch (e) {
    const cause = await pipes.abandon();
    // never leave a named pipe behind: anything that later opened it to read would wait forever
    await rm(pipes.pipeDir, { recursive: true, force: true });
    // a real file that could not be written (a full disk) closed its pipe: that, not DuckDB's broken pipe, is the error
    throw cause ?? e;
  } finally {
    if (threads !== null) await conn.run(`SET threads = ${threads}`);
  }
  const hashed = await pipes
    .finish(rows.map((st) => String(st.filename)))
    .finally(() => rm(pipes.pipeDir, { recursive: true, force: true }));
  const out: LayoutFile[] = [];
  for (const st of rows) {
    const h = hashed.get(String(st.filename))!;
    // a size-split COPY can end with an empty file: it holds nothing a reader needs
    if (Number(st.count) === 0) {
      await rm(h.file, { force: true });
      continue;
    }
    if (h.size !== Number(st.file_size_bytes))
      throw new Error(`DuckDB reports ${st.file_size_bytes} bytes for ${h.file}, ${h.size} arrived`);
    const stats = new Map<string, Map<string, string>>();
    for (const c of st.column_statistics ?? []) stats.set(c.key, new Map(c.value.map((kv) => [kv.key, kv.value])));
    out.push({
      file: h.file,
      hiveDir,
      partitionValues,
      records: Number(st.count),
      size: h.size,
      sha256: h.sha256,
      footer: Number(st.footer_size_bytes),
      stats,
    });
  }
  return out;
}

/** Folders holding files (the partitions), depth-first. */
async function leafDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    const entries = await readdir(d, { withFileTypes: true });
    if (entries.some((e) => e.isFile())) out.push(d);
    for (const e of entries) if (e.isDirectory()) await walk(`${d}/${e.name}`);
  };
  await walk(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
  return out;
}

/** Sets the connection's DuckDB to one thread and answers the count to restore. */
async function oneThread(conn: DuckDBConnection): Promise<number> {
  const r = await conn.runAndReadAll(`SELECT current_setting('threads')::INTEGER AS n`);
  const n = Number((r.getRowObjectsJson()[0] as { n: unknown }).n);
  await conn.run('SET threads = 1');
  return n;
}
