/**
 * fdl import's output hashed while DuckDB writes it (src/host/hashed-output.ts): the digests equal
 * a read-back hash of the same bytes, size-split writes use several pipes, a COPY that fails
 * midway leaves no reader waiting (the test process would not end), and a pipe DuckDB outran is
 * still hashed correctly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { HashedOutput, PIPE_PATTERN } from '../src/host/hashed-output.js';

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

async function withDuck<T>(f: (run: (sql: string) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return await f(async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

const copy = (to: string, rows: number, fileSize: number, extra = '') =>
  `COPY (SELECT i, md5(i::VARCHAR) AS h${extra} FROM range(${rows}) t(i)) TO '${to}' (FORMAT parquet, FILE_SIZE_BYTES ${fileSize}, FILENAME_PATTERN '${PIPE_PATTERN}', OVERWRITE_OR_IGNORE, RETURN_STATS)`;

test('size-split output through pipes: every digest and size equals the bytes on disk, rows intact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hashed-'));
  try {
    await withDuck(async (run) => {
      const out = await HashedOutput.open(join(dir, '.pipes'), dir);
      const stats = await run(copy(out.pipeDir, 400_000, 2_000_000));
      assert.ok(stats.length >= 3, `several files (${stats.length})`);
      const hashed = await out.finish(stats.map((s) => String(s.filename)));
      let rows = 0;
      for (const s of stats) {
        const h = hashed.get(String(s.filename))!;
        assert.equal(h.readBack, false, 'hashed from the pipe');
        assert.equal(h.size, Number(s.file_size_bytes));
        assert.equal(h.sha256, sha(h.file));
        rows += Number((await run(`SELECT count(*) AS n FROM '${h.file}'`))[0]!.n);
      }
      assert.equal(rows, 400_000);
      // unused pipes released, no stray output
      assert.deepEqual(
        readdirSync(dir)
          .filter((n) => n !== '.pipes')
          .sort(),
        [...hashed.values()].map((h) => h.file.slice(dir.length + 1)).sort(),
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a COPY that fails midway: abandon() leaves no reader waiting; a file DuckDB created before its pipe is hashed by reading it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hashed-'));
  try {
    await withDuck(async (run) => {
      const out = await HashedOutput.open(join(dir, 'a', '.pipes'), join(dir, 'a'));
      await assert.rejects(
        run(copy(out.pipeDir, 400_000, 2_000_000, `, CASE WHEN i = 300000 THEN error('boom') END AS e`)),
        /boom/,
      );
      await out.abandon();
      // a regular file where pipe 0 would be: as if DuckDB had outrun the pipes
      const b = join(dir, 'b');
      const pipes = join(b, '.pipes');
      mkdirSync(pipes, { recursive: true });
      writeFileSync(join(pipes, 'data_0.parquet'), '');
      const out2 = await HashedOutput.open(pipes, b);
      const stats = await run(copy(out2.pipeDir, 1000, 100_000_000));
      const hashed = await out2.finish(stats.map((s) => String(s.filename)));
      const h = hashed.get(String(stats[0]!.filename))!;
      assert.equal(h.readBack, true);
      assert.equal(h.sha256, sha(h.file));
      assert.equal(h.size, Number(stats[0]!.file_size_bytes));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
