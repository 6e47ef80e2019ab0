/**
 * Which files of a remote version a statement needs: a judge over the version's statistics database
 * (lake/prune.ts), and which table a `count(*) FROM t` only counts. One DuckDB connection, used by
 * one statement at a time.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
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
export async function buildPruning(engine: DuckDBInstance, catalog: LakeCatalog, name: string) {
  const conn = await engine.connect();
  let index: PruneIndex;
  try {
    index = await PruneIndex.build(conn, catalog, name);
  } catch (e) {
    degraded(
      'prune_index',
      `no pruning index for ${name} (every file a statement reads is fetched): ${(e as Error).message.split('\n')[0]}`,
    );
    conn.disconnectSync();
    return null;
  }
  // one statement at a time on the judge's connection
  const turns = new Slots();
  // A dashboard repeats its statements: the verdict depends only on the text and the search path.
  const verdicts = new LRUCache<string, { s: Survivors | null }>({ max: 512 });
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
    },
  };
}

export type PruningJudge = NonNullable<Awaited<ReturnType<typeof buildPruning>>>;
