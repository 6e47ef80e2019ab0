/**
 * The sessions' instance never has a writable database of a version attached, at any moment: not
 * while a version's views and pruning statistics are first built, not while another session's
 * statement swaps a remote table's view in a loop. They are written by the repository's views
 * builder, an instance no session connection belongs to (versions/views-database.ts,
 * versions/pruning.ts, engine/engines.ts). A session's raw DuckDB connection — admission, the bind
 * check and the statement-type check all bypassed — watches every attached database in a tight loop
 * and tries to write into each it sees; only DuckDB's own `memory` is writable (docs/security.md says
 * what stays writable). The catalog emulation's databases (`fdl_pg`, and `fdl_pg_versions`, swapped
 * when the version's rows are added) are watched too: every session of the repository reads them.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { connectSession } from '../src/engine/engine.js';
import { createRepositoryEngine, type RepositoryEngine } from '../src/engine/engines.js';
import { attachVersion, type AttachedVersion } from '../src/versions/attach.js';
import { openRepository } from '../src/resolver/repository.js';
import { HttpStore } from '../src/store/http-store.js';
import { FIXTURES } from './support/gateway.js';
import { serveFolder } from './support/http-server.js';

const work = mkdtempSync(join(tmpdir(), 'fdl-views-never-writable-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** What the watcher saw: views databases attached writable, and writes DuckDB accepted in one. */
interface Seen {
  polls: number;
  writable: string[];
  written: string[];
}

/**
 * Until `stop()`: list the attached databases; every one but DuckDB's own (the version's views, its
 * frozen catalog, its pruning statistics, a copy being changed, the catalog emulation's) must be
 * read-only, and a CREATE or INSERT into it must fail.
 */
function watch(c: DuckDBConnection): { stop(): Promise<Seen> } {
  const seen: Seen = { polls: 0, writable: [], written: [] };
  let running = true;
  const loop = (async () => {
    while (running) {
      seen.polls++;
      const dbs = (
        await c.runAndReadAll(
          "SELECT database_name, readonly FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'",
        )
      ).getRows();
      for (const [name, readonly] of dbs) {
        if (readonly !== true) seen.writable.push(String(name));
        const db = `"${String(name)}"`;
        // No INSERT into the table a refused CREATE did not make: DuckDB 1.5's lookup of a missing
        // qualified name while `ATTACH OR REPLACE` swaps that database dereferences a null pointer
        // and invalidates the instance (an INTERNAL error). Sessions never reach that path: the
        // gateway refuses unknown relations itself, and a statement holds its version's views.
        for (const sql of [
          `CREATE TABLE ${db}.main.forged AS SELECT 1 AS x`,
          `CREATE OR REPLACE VIEW ${db}.main.ev AS SELECT 1 AS forged`,
        ]) {
          try {
            await c.run(sql);
            seen.written.push(`${sql}`);
            if (sql.startsWith('CREATE TABLE')) await c.run(`INSERT INTO ${db}.main.forged VALUES (2)`);
          } catch (e) {
            const m = (e as Error).message;
            // refused as read-only, or the database was detached meanwhile; nothing else is an answer
            if (!/read-only|read only|does not exist|not found|Catalog Error/i.test(m)) throw e;
          }
        }
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

test('no database of a version is ever writable in the sessions’ instance: while a version is first built and while views are swapped in a loop', async (t) => {
  const http = await serveFolder(join(FIXTURES, 'repos', 'partitioned'));
  const cacheDir = join(work, 'cache');
  const engine: RepositoryEngine = await createRepositoryEngine([cacheDir], {
    memoryLimit: '256MB',
    threads: 1,
    tempDirectory: join(cacheDir, 'duckdb-tmp', 'e1'),
  });
  let watcher: DuckDBConnection | undefined;
  let session: DuckDBConnection | undefined;
  let v: AttachedVersion | undefined;
  try {
    const repo = await openRepository('r', new HttpStore(http.url), { signatures: 'off', refTtlMs: 0, cacheDir });
    const { versionId } = await repo.resolve('heads/main');
    const dbName = `r@${versionId}`;
    watcher = await connectSession(engine.sessions);
    session = await connectSession(engine.sessions);

    // 1. the first build, watched from before it starts
    let w = watch(watcher);
    v = await attachVersion(engine, repo, versionId, dbName, '__fdl_meta_w1', 60_000);
    const build = await w.stop();
    assert.ok(build.polls > 1, `watched ${build.polls} times`);

    // 2. another session forces a swap per statement: a count-only view, then a view over every file
    const db = `"${dbName}"`;
    const statements = [
      `SELECT count(*) FROM ${db}.main.ev`,
      `SELECT category, count(*) FROM ${db}.main.ev GROUP BY 1 ORDER BY 1`,
      `SELECT count(*) FROM ${db}.main.ev WHERE ts >= '2025-03-01' AND ts < '2025-04-01'`,
    ];
    const answers = new Map<string, string>();
    w = watch(watcher);
    let swaps = 0;
    for (let i = 0; i < 90; i++) {
      const sql = statements[i % statements.length]!;
      const hold = await v.ensureTables([{ schema: 'main', name: 'ev' }], { sql, searchSchemas: ['main'] });
      try {
        swaps = hold.views ?? swaps;
        const got: string = JSON.stringify((await session.runAndReadAll(sql)).getRows(), (_, x: unknown) =>
          typeof x === 'bigint' ? String(x) : x,
        );
        assert.equal(got, answers.get(sql) ?? got, `${sql} answers as before`);
        answers.set(sql, got);
      } finally {
        hold.release();
      }
    }
    const swapping = await w.stop();
    t.diagnostic(`build watched ${build.polls} times; ${swaps} swaps watched ${swapping.polls} times`);
    assert.ok(swaps >= 40, `views swapped ${swaps} times`);
    assert.ok(swapping.polls > 1, `watched ${swapping.polls} times`);

    assert.deepEqual(
      { building: build.writable, swapping: swapping.writable },
      { building: [], swapping: [] },
      'a views database attached writable',
    );
    assert.deepEqual({ building: build.written, swapping: swapping.written }, { building: [], swapping: [] });
    // nothing forged reached any database of the version
    const names = (
      await session.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE table_name = 'forged'")
    ).getRows();
    assert.deepEqual(names, []);
  } finally {
    watcher?.disconnectSync();
    session?.disconnectSync();
    await v?.dispose();
    engine.sessions.closeSync();
    engine.builder.closeSync();
    await http.close();
  }
});
