/**
 * What hashing costs `fdl import`: the same COPY of ROWS generated rows (≈ 1 GB of Parquet at the
 * default) written three ways in one run — plain (no hash), plain then hashed by reading the file
 * back (the page cache usually still holds it), and through named pipes hashed while DuckDB writes
 * (src/host/hashed-output.ts, what import does). Reports seconds and MB/s side by side.
 * Usage: node dist/bench/import-hash.js [ROWS]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { HashedOutput, PIPE_PATTERN } from '../src/host/hashed-output.js';
import { hashFile } from '../src/host/repo.js';

const rows = Number(process.argv[2] ?? 30_000_000);
const dir = await mkdtemp(path.join(tmpdir(), 'fdl-bench-import-hash-'));
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
const source = `SELECT i AS id, random() AS a, random() AS b, random() AS c FROM range(${rows}) t(i)`;
const copy = (to: string) =>
  conn.runAndReadAll(
    `COPY (${source}) TO '${to}' (FORMAT parquet, FILE_SIZE_BYTES 536870912, FILENAME_PATTERN '${PIPE_PATTERN}', OVERWRITE_OR_IGNORE, RETURN_STATS)`,
  );
const files = (r: Awaited<ReturnType<typeof copy>>) => r.getRowObjectsJson().map((x) => String(x.filename));
try {
  await conn.run('SET preserve_insertion_order = false');
  const results: { name: string; secs: number; bytes: number }[] = [];
  const measure = async (name: string, f: (out: string) => Promise<string[]>) => {
    const out = path.join(dir, name);
    const t = performance.now();
    const written = await f(out);
    const secs = (performance.now() - t) / 1000;
    let bytes = 0;
    for (const w of written) bytes += (await stat(w)).size;
    results.push({ name, secs, bytes });
    process.stdout.write(
      `${name}: ${secs.toFixed(2)} s, ${(bytes / 1e6).toFixed(0)} MB in ${written.length} file(s), ${(bytes / 1e6 / secs).toFixed(0)} MB/s\n`,
    );
    await rm(out, { recursive: true, force: true });
  };
  await measure('plain COPY (no hash)', async (out) => files(await copy(out)));
  await measure('COPY, then hash by reading back', async (out) => {
    const written = files(await copy(out));
    for (const w of written) await hashFile(w);
    return written;
  });
  await measure('COPY through pipes, hashed while written', async (out) => {
    const pipes = await HashedOutput.open(`${out}/.pipes`, out);
    const r = await copy(pipes.pipeDir);
    const hashed = await pipes.finish(files(r));
    return [...hashed.values()].map((h) => h.file);
  });
  const [plain, readBack, piped] = results as [(typeof results)[0], (typeof results)[0], (typeof results)[0]];
  process.stdout.write(
    `relative to plain: read back ${(readBack.secs / plain.secs).toFixed(2)}x, pipes ${(piped.secs / plain.secs).toFixed(2)}x; pipes / read back ${(piped.secs / readBack.secs).toFixed(2)}x\n`,
  );
} finally {
  conn.closeSync();
  inst.closeSync();
  await rm(dir, { recursive: true, force: true });
}
