/**
 * Which files of a remote version a statement needs: a judge over the version's statistics database
 * (lake/prune.ts), and which table a `count(*) FROM t` only counts. One DuckDB connection, used by
 * one statement at a time. The statistics database is written by the repository's views builder
 * and attached READ_ONLY in the sessions' instance, as the views databases are (views-database.ts):
 * no statement can change what the judge reads.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RepositoryEngine } from '../engine/engines.js';
import { lit, qi } from '../lake/sql.js';
import { LRUCache } from 'lru-cache';
import { countOnlyTable, PruneIndex, type LakeCatalog, type LakeTable, type Survivors } from '../lake/index.js';
import { replaceQuotedIdentifiers } from '../text/split.js';
import { degraded, firstLine } from '../degraded.js';
import { Slots } from '../serial.js';
import type { StatementFiles } from './lease.js';

/**
 * The pruning judge of a remote version: one DuckDB connection holding the statistics database,
 * used by one statement at a time. null when the statistics database cannot be built (every
 * file is then fetched, as before pruning existed).
 */
export async function buildPruning(engine: RepositoryEngine, catalog: LakeCatalog, name: string) {
  const file = join(
    engine.viewsDir,
    `${name.replace(/[^A-Za-z0-9._-]/g, '_')}-${randomBytes(6).toString('hex')}.duckdb`,
  );
  const conn = await engine.sessions.connect();
  let index: PruneIndex;
  try {
    index = await inBuilder(engine, (b) => PruneIndex.build(b, catalog, name, file));
    await conn.run(`ATTACH ${lit(file)} AS ${qi(name)} (READ_ONLY)`);
  } catch (e) {
    degraded(
      'prune_index',
      `no pruning index for ${name} (every file a statement reads is fetched): ${(e as Error).message.split('\n')[0]}`,
    );
    conn.disconnectSync();
    await rm(file, { force: true }).catch(() => undefined);
    return null;
  }
  // one statement at a time on the judge's connection
  const turns = new Slots();
  // A dashboard repeats its statements: the verdict depends only on the text and the search path.
  const verdicts = new LRUCache<string, { s: Survivors | null }>({
    max: 512,
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (_v, key) => 2 * key.length + 1024,
  });
  return {
    /**
     * The files `statement` needs. Names of this version's own database (a cross-version statement
     * names each version's database) are judged among the statistics views; other versions' tables
     * are left to their own judges.
     */
    judge(statement: StatementFiles, dbName: string): Promise<Survivors | null> {
      const own = dbName.toLowerCase();
      const sql = replaceQuotedIdentifiers(statement.sql, (name) =>
        name.toLowerCase() === own ? index.dbName : undefined,
      );
      const key = `${statement.searchSchemas.join('\0')}\n${sql}`;
      const params = statement.params ?? [];
      const known = params.length ? undefined : verdicts.get(key);
      if (known) return Promise.resolve(known.s);
      return turns
        .run(() => index.survivors(conn, sql, statement.searchSchemas, params))
        .then((s) => (params.length ? s : (verdicts.set(key, { s }), s)));
    },
    /** The table a `count(*) FROM t` statement only counts, or null (lake/count-only.ts). */
    countOnly(statement: StatementFiles, dbName: string): Promise<LakeTable | null> {
      return turns.run(() => countOnlyTable(conn, statement.sql, catalog, statement.searchSchemas, dbName));
    },
    async dispose() {
      await turns.idle();
      await index
        .dispose(conn)
        .catch((e: unknown) => degraded('detach', `detaching the pruning index ${name} failed: ${firstLine(e)}`));
      conn.disconnectSync();
      await rm(file, { force: true });
    },
  };
}

/** The index built on a builder connection, checkpointed and let go of there. */
async function inBuilder(engine: RepositoryEngine, build: (b: DuckDBConnection) => Promise<PruneIndex>) {
  const b = await engine.builder.connect();
  try {
    const index = await build(b);
    try {
      await b.run(`CHECKPOINT ${qi(index.dbName)}`);
    } finally {
      await b.run(`DETACH ${qi(index.dbName)}`);
    }
    return index;
  } finally {
    b.disconnectSync();
  }
}

export type PruningJudge = NonNullable<Awaited<ReturnType<typeof buildPruning>>>;
