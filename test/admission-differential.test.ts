/**
 * Admission against the engine's own reading. Thousands of seeded, repeatable statements built from a
 * grammar of the tricks that once got past admission (WITH scopes and shadowing, EXPLAIN heads with
 * quotes and comments, quoted names with dots and slashes, FROM-first, set operations, subqueries,
 * file literals, system views and table functions, other catalogs) are each admitted or refused by
 * the gateway's analysis and allowlist; every admitted one then runs in a sandbox DuckDB (not sealed,
 * so nothing but admission stands in the way) with DuckDB's own file-system log on, and what DuckDB
 * really did decides: it opened no file but the granted version's data files, wrote nothing, changed
 * no view, and returned no server path. A second case serves every table of every fixture.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import {
  admit,
  allowedFunctions,
  refuseInternalNames,
  relationsOf,
  type AdmissionContext,
} from '../src/analysis/containment.js';
import { installCompat } from '../src/pg/catalog/install.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import type { LakeCatalog } from '../src/lake/model.js';
import { FIXTURES } from './support/gateway.js';
import { redactServerPaths } from '../src/engine/duckdb-errors.js';
import { renderPlan, type ExplainHead } from '../src/text/explain.js';
import { basename } from 'node:path';
import { fileListing as files } from './support/files.js';

interface Manifest {
  repos: Record<string, { path: string; data_dir: string; refs: Record<string, string> }>;
}
const manifest = (await import(join(FIXTURES, 'manifest.json'), { with: { type: 'json' } })).default as Manifest;

/** mulberry32: a small seeded generator, so every run builds the same statements. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

describe('admission against DuckDB’s own reading', () => {
  const work = mkdtempSync(join(tmpdir(), 'fdl-diff-'));
  const granted = join(work, 'granted');
  const other = join(work, 'other');
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let catalog: LakeCatalog;
  let ctx: AdmissionContext;
  let grantedFiles: Set<string>;
  const GRANTED_DB = 'granted@v1';
  const OTHER_DB = 'other@v1';

  async function attach(root: string, repo: string, db: string, meta: string): Promise<LakeCatalog> {
    const m = manifest.repos[repo]!;
    const id = m.refs['refs/heads/main']!;
    const cat = await openCatalog(conn, join(root, 'versions', id, 'ducklake.duckdb'), meta);
    await attachCatalog(conn, cat, db, (rel) => join(root, m.data_dir, rel));
    return cat;
  }

  before(async () => {
    cpSync(join(FIXTURES, manifest.repos.odd_names!.path), granted, { recursive: true });
    cpSync(join(FIXTURES, manifest.repos.basic!.path), other, { recursive: true });
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await installCompat(conn);
    catalog = await attach(granted, 'odd_names', GRANTED_DB, '__fdl_meta_granted');
    await attach(other, 'basic', OTHER_DB, '__fdl_meta_other');
    await conn.run(`USE ${q(GRANTED_DB)}`);
    grantedFiles = new Set(
      catalog.tables.flatMap((t) => t.files.map((f) => join(granted, manifest.repos.odd_names!.data_dir, f.path))),
    );
    const sets = new Map<string, ReadonlySet<string>>();
    for (const db of [GRANTED_DB, 'fdl_pg']) sets.set(db.toLowerCase(), await relationsOf(conn, db));
    const macros = new Set(catalog.macros.map((m) => m.name.toLowerCase()));
    ctx = {
      functions: await allowedFunctions(conn),
      versionDb: GRANTED_DB,
      searchSchemas: ['main'],
      pinnedDbs: [],
      compatDb: 'fdl_pg',
      hasRelation: (db, s, t) => !!sets.get(db)?.has(`${s}.${t}`),
      definesFunction: (db, name) => db === GRANTED_DB.toLowerCase() && macros.has(name),
    };
  });
  after(() => {
    conn?.disconnectSync();
    instance?.closeSync();
    rmSync(work, { recursive: true, force: true });
  });

  /** Admit as the planner does; the refusal's SQLSTATE, or null when admitted. */
  async function judge(sql: string): Promise<{ refused: string } | { admitted: string; explain?: ExplainHead }> {
    try {
      refuseInternalNames(sql);
      const a = await analyze(conn, sql);
      admit(a, ctx);
      return { admitted: a.sql, explain: a.explain };
    } catch (e) {
      const code = (e as { sqlstate?: string }).sqlstate;
      if (!code) throw e;
      return { refused: code };
    }
  }

  /** Run an admitted text in the sandbox and return what DuckDB touched and answered. */
  async function touches(
    sql: string,
    explain?: ExplainHead,
  ): Promise<{ opened: string[]; writes: string[]; type: string; output: string; error?: string }> {
    await conn.run('CALL truncate_duckdb_logs()');
    await conn.run("CALL enable_logging('FileSystem')");
    let type = '?';
    let output = '';
    let error: string | undefined;
    const timer = setTimeout(() => conn.interrupt(), 5_000);
    try {
      const p = await conn.prepare(sql);
      type = StatementType[p.statementType] ?? String(p.statementType);
      if (p.statementType === StatementType.SELECT || p.statementType === StatementType.EXPLAIN) {
        const r = await p.runAndReadUntil(200);
        // as the wire sends an EXPLAIN's plan (result-stream.ts)
        const rows = explain
          ? r.getRows().map(([k, v]) => [k, renderPlan(String(v), explain.format, redactServerPaths)])
          : r.getRows();
        output = JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      }
      p.destroySync();
    } catch (e) {
      error = (e as Error).message;
    } finally {
      clearTimeout(timer);
      await conn.run('CALL disable_logging()');
    }
    const r = await conn.runAndReadAll("SELECT message FROM duckdb_logs WHERE type = 'FileSystem'");
    const ops = r.getRows().map((row) => JSON.parse(String(row[0])) as { path: string; op: string });
    return {
      opened: [...new Set(ops.filter((o) => o.op === 'OPEN').map((o) => o.path))],
      writes: ops.filter((o) => o.op === 'WRITE').map((o) => o.path),
      type,
      output,
      error,
    };
  }

  test('thousands of generated statements: whatever is admitted touches only the granted version', async () => {
    const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const grantedTables = catalog.tables.map((t) => `${q(t.schema)}.${q(t.name)}`);
    const otherMeta = readdirSync(join(other, 'versions'))[0]!;
    const paths = [
      `${other}/data/**/*.parquet`,
      `${granted}/data/**/*.parquet`,
      '/etc/passwd',
      `${other}/versions/${otherMeta}/ducklake.duckdb`,
      'data/**/*.parquet',
      `${granted}/data/evil.parquet`,
    ];
    const names = [
      'a',
      'b',
      'c',
      'duckdb_databases',
      'duckdb_views',
      'duckdb_tables',
      'duckdb_settings',
      'x/y',
      ...paths,
    ];
    const sources = (r: () => number, scope: string[]): string => {
      switch (Math.floor(r() * 14)) {
        case 0:
        case 1:
        case 2:
          return pick(r, grantedTables);
        case 3:
          return q(pick(r, names));
        case 4:
          return lit(pick(r, paths));
        case 5:
          return `read_parquet(${lit(pick(r, paths))})`;
        case 6:
          return pick(r, [
            'range(3)',
            'generate_series(1, 2)',
            'unnest([1, 2])',
            "glob('*')",
            'duckdb_views()',
            'duckdb_databases()',
            `query('SELECT 1')`,
            'pg_get_viewdef(1)',
            "read_text('/etc/hostname')",
          ]);
        case 7:
          return `${q(pick(r, [OTHER_DB, 'system', 'temp', 'memory', '__fdl_meta_other', GRANTED_DB]))}.main.${q(pick(r, ['orders', 'customers', 'duckdb_views', 'ducklake_data_file', 'a']))}`;
        case 8:
          return `(${select(r, scope, 1)}) AS s${Math.floor(r() * 9)}`;
        case 9:
          return `${pick(r, ['duckdb_databases', 'duckdb_views', 'pg_catalog.pg_class', 'information_schema.tables', 'pg_class'])}`;
        default:
          return scope.length ? q(pick(r, scope)) : pick(r, grantedTables);
      }
    };
    const select = (r: () => number, scope: string[], depth: number): string => {
      const from = sources(r, scope);
      const item = pick(r, [
        '*',
        'count(*)',
        '1',
        `pg_get_viewdef(1)`,
        `(SELECT count(*) FROM ${sources(r, scope)})`,
        'current_database()',
        "getenv('HOME')",
      ]);
      const where = r() < 0.2 ? ` WHERE EXISTS (SELECT 1 FROM ${sources(r, scope)})` : '';
      const base = pick(r, [`SELECT ${item} FROM ${from}${where}`, `FROM ${from} SELECT ${item}`, `FROM ${from}`]);
      if (depth < 2 && r() < 0.25)
        return `${base} ${pick(r, ['UNION ALL', 'EXCEPT', 'INTERSECT'])} ${select(r, scope, depth + 1)}`;
      return base;
    };
    const withClause = (r: () => number): { text: string; scope: string[] } => {
      if (r() < 0.25) {
        // a name read in an earlier body, defined as a CTE only later: DuckDB binds it as a table or file
        const target = pick(r, names);
        const read = r() < 0.5 ? lit(target) : q(target);
        return {
          text: `WITH ${r() < 0.3 ? 'RECURSIVE ' : ''}a AS (SELECT * FROM ${read}), ${q(target)} AS (SELECT 1 AS n) `,
          scope: ['a', target],
        };
      }
      const n = 1 + Math.floor(r() * 3);
      const recursive = r() < 0.3;
      const defs: string[] = [];
      const scope: string[] = [];
      for (let i = 0; i < n; i++) {
        const name = pick(r, names);
        const body =
          recursive && r() < 0.4
            ? `SELECT 1 AS n UNION ALL SELECT n + 1 FROM ${q(name)} WHERE n < 3`
            : select(r, [...scope, ...names.filter(() => r() < 0.2)], 1);
        defs.push(`${q(name)} AS ${r() < 0.2 ? 'MATERIALIZED ' : ''}(${body})`);
        scope.push(name);
      }
      return { text: `WITH ${recursive ? 'RECURSIVE ' : ''}${defs.join(', ')} `, scope };
    };
    const payloads = [
      `COPY (SELECT 1) TO ${lit(`${granted}/data/evil.parquet`)}`,
      `CREATE OR REPLACE VIEW ${q(GRANTED_DB)}.main.a AS SELECT 1`,
      'SET GLOBAL threads = 1',
      'CHECKPOINT',
      'CALL enable_logging()',
      `ATTACH ${lit(`${other}/versions/${otherMeta}/ducklake.duckdb`)} AS z`,
    ];
    const statement = (r: () => number): string => {
      const w = r() < 0.5 ? withClause(r) : { text: '', scope: [] };
      let sql = w.text + select(r, w.scope, 0);
      const comment = pick(r, ['', '/* c */ ', '-- c\n', '/* /* nested */ */ ']);
      switch (Math.floor(r() * 10)) {
        case 0:
          sql = `EXPLAIN ${comment}${sql}`;
          break;
        case 1:
          sql = `EXPLAIN ANALYZE ${sql}`;
          break;
        case 2:
          sql = `EXPLAIN (${pick(r, ['ANALYZE', 'FORMAT JSON', 'ANALYZE, FORMAT JSON', "ANALYZE ') SELECT ')", 'ANALYZE true'])}) ${sql}`;
          break;
        case 3:
          sql = `EXPLAIN (ANALYZE ') SELECT ') ${pick(r, payloads)} --' AS a`;
          break;
        case 4:
          sql = `${comment}${pick(r, payloads)}`;
          break;
        default:
          sql = comment + sql;
      }
      return sql;
    };

    const r = rng(20261203);
    const counts = { admitted: 0, refused: 0, engineError: 0 };
    const problems: string[] = [];
    const before = files(work);
    const views = async () =>
      (
        await conn.runAndReadAll(
          `SELECT string_agg(sql, ';' ORDER BY view_name) FROM duckdb_views() WHERE database_name = ${lit(GRANTED_DB)}`,
        )
      ).getRows()[0]![0];
    const viewsBefore = await views();
    for (let i = 0; i < 2000; i++) {
      const sql = statement(r);
      const verdict = await judge(sql);
      if ('refused' in verdict) {
        counts.refused++;
        continue;
      }
      counts.admitted++;
      const t = await touches(verdict.admitted, verdict.explain);
      if (t.error) counts.engineError++;
      const outside = t.opened.filter((p) => !grantedFiles.has(p));
      if (outside.length) problems.push(`${sql}\n  opened ${outside.join(', ')}`);
      if (t.writes.length) problems.push(`${sql}\n  wrote ${t.writes.join(', ')}`);
      if (!t.error && t.type !== 'SELECT' && t.type !== 'EXPLAIN') problems.push(`${sql}\n  ran a ${t.type} statement`);
      if (t.output.includes(basename(work)))
        problems.push(
          `${sql}\n  answered a server path: ${t.output.slice(Math.max(0, t.output.indexOf(basename(work)) - 120), t.output.indexOf(basename(work)) + 60)}`,
        );
    }
    assert.deepEqual(files(work), before, 'no file was written or changed');
    assert.equal(await views(), viewsBefore, 'no view was replaced');
    assert.deepEqual(problems, []);
    // The grammar reaches both sides: a generator that only produced refusals would prove nothing.
    assert.ok(counts.admitted > 200 && counts.refused > 200, JSON.stringify(counts));
    console.log(`differential: ${JSON.stringify(counts)}`);
  });

  test('every table of every fixture is served, odd names included', async () => {
    for (const [name, repo] of Object.entries(manifest.repos)) {
      if (name === 'encryption') continue; // needs its key: test/lake.test.ts
      const root = join(FIXTURES, repo.path);
      const id = repo.refs['refs/heads/main'] ?? Object.values(repo.refs)[0]!;
      const db = `fx_${name}`;
      const cat = await openCatalog(conn, join(root, 'versions', id, 'ducklake.duckdb'), `__fdl_meta_fx_${name}`);
      await attachCatalog(conn, cat, db, (rel) => join(root, repo.data_dir, rel));
      const sets = await relationsOf(conn, db);
      const fxCtx: AdmissionContext = {
        ...ctx,
        versionDb: db,
        hasRelation: (d, s, t) => d === db && sets.has(`${s}.${t}`),
        definesFunction: () => false,
      };
      for (const t of cat.tables) {
        const sql = `SELECT count(*) FROM ${q(t.schema)}.${q(t.name)}`;
        const a = await analyze(conn, sql);
        assert.doesNotThrow(() => admit(a, fxCtx), `${name}: ${sql}`);
        await conn.run(`USE ${q(db)}`);
        const rows = (await conn.runAndReadAll(a.sql)).getRows();
        assert.equal(rows.length, 1, `${name}: ${sql}`);
      }
    }
    await conn.run(`USE ${q(GRANTED_DB)}`);
  });
});
