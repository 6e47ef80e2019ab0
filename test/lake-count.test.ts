/**
 * `SELECT count(*) FROM t` over local versions is answered from the catalog's record counts for
 * the files that need no row filter (lake/count-only.ts, versions/attach.ts). Through a real
 * client, on every version of every fixture repository (deletes, partial delete files, inlined
 * rows and deletions, deletion vectors, schema evolution, encryption, name-mapped files): the
 * counted answer equals the scan's answer and the real extension's row count.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { countedFiles, countedRows, countingStatement, openCatalog, type LakeCatalog } from '../src/lake/index.js';
import { allVersions } from './support/lake-fixtures.js';
import { FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
  repos: Record<string, { path: string }>;
};
const qi = (s: string) => `"${s.replaceAll('"', '""')}"`;

interface Expected {
  tables?: Record<string, unknown>;
  queries?: { object?: string; kind?: string; rows?: unknown[][]; error?: string }[];
}

/** Tables of a version as the real extension listed them, with its row count when it read them all. */
function tablesOf(expectedFile: string): { schema: string; name: string; rows: number | null }[] {
  const e = JSON.parse(readFileSync(expectedFile, 'utf8')) as Expected;
  return Object.keys(e.tables ?? {}).map((key) => {
    const dot = key.indexOf('.');
    const q = e.queries?.find((x) => x.object === key && x.kind === 'rows' && !x.error && x.rows);
    return { schema: key.slice(0, dot), name: key.slice(dot + 1), rows: q ? q.rows!.length : null };
  });
}

describe('count(*) from the catalog on local versions', () => {
  let gw: RunningGateway;

  before(async () => {
    const args = Object.entries(manifest.repos).flatMap(([name, r]) => ['--repo', `${name}=${join(FIXTURES, r.path)}`]);
    gw = await startGateway(args, { timeoutMs: 60_000 });
  });

  after(async () => {
    await gw?.stop();
  });

  it("equals the scan and the real extension on every table of every fixture version, as do pg_class's row estimates where given", async () => {
    let checked = 0;
    let estimated = 0;
    for (const v of allVersions()) {
      if (!v.expectedFile) continue;
      const tables = tablesOf(v.expectedFile);
      if (!tables.length) continue;
      const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: `${v.repo}@${v.id}` });
      await c.connect();
      try {
        for (const t of tables) {
          const ref = `${qi(t.schema)}.${qi(t.name)}`;
          const what = `${v.repo}@${v.id} ${ref}`;
          // a filter that keeps every row makes it a scan (the statement is no longer a bare count)
          const scanned = await c.query(`select count(*)::bigint as n from ${ref} where true`);
          const scan = scanned.rows[0]!.n as string;
          const counted = await c.query(
            `select count(*) as n, count(*)::int, COUNT( * ) as "Total" from ${ref}${checked % 2 ? ' AS x' : ''}`,
          );
          assert.deepEqual(
            counted.fields.map((f) => f.name),
            ['n', 'count', 'Total'],
            what,
          );
          assert.deepEqual(counted.rows[0], { n: scan, count: Number(scan), Total: scan }, what);
          if (t.rows !== null) assert.equal(Number(scan), t.rows, `${what}: the real extension's rows`);
          // pg_class.reltuples and n_live_tup: the table's rows where the catalog counts them all, else
          // PostgreSQL's unknown (-1, 0); never another number (BI tools show them as row estimates).
          const estimate = await c.query(
            `select c.relkind as kind, c.reltuples::bigint as r, s.n_live_tup as live from pg_class c
             left join pg_stat_user_tables s on s.relid = c.oid where c.relname = $1 and c.relnamespace = (select oid from pg_namespace where nspname = $2)`,
            [t.name, t.schema],
          );
          assert.equal(estimate.rows.length, 1, `${what}: one pg_class row`);
          const { kind, r, live } = estimate.rows[0] as { kind: string; r: string; live: string };
          if (kind !== 'r') assert.equal(r, '-1', `${what}: a view has no estimate`);
          else if (r === '-1') assert.equal(live, '0', what);
          else {
            assert.deepEqual([r, live], [scan, scan], `${what}: the estimate`);
            estimated++;
          }
          checked++;
        }
      } finally {
        await c.end();
      }
    }
    assert.ok(checked > 40, `checked ${checked} tables`);
    assert.ok(estimated >= 10, `${estimated} tables with a row estimate`);
  });
});

describe('the counting statement (lake layer)', () => {
  it('reads only the files that need a row filter; the others stand as their record counts', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      // a table with files both with and without deletes
      const mixed = (c: LakeCatalog) =>
        c.tables.find(
          (t) => countedFiles(t, c.snapshotId).length > 0 && countedFiles(t, c.snapshotId).length < t.dataFiles.length,
        );
      let catalog: LakeCatalog | null = null;
      for (const v of allVersions()) {
        await conn.run('DETACH DATABASE IF EXISTS meta');
        catalog = await openCatalog(conn, v.catalogFile, 'meta');
        if (mixed(catalog)) break;
      }
      const table = mixed(catalog!);
      assert.ok(catalog && table, 'a table with files both with and without deletes');
      const counted = countedFiles(table, catalog.snapshotId);
      const sql = `select count(*) from ${qi(table.schema)}.${qi(table.name)}`;
      let seen: string | null = null;
      const out = await countingStatement(conn, sql, catalog, ['main'], 'db', async (t) => {
        assert.equal(t, table);
        seen = 'FROM range(N)';
        return `SELECT 1 AS x FROM range(${countedRows(counted, catalog!.snapshotId)})`;
      });
      assert.ok(seen && out, 'recognised as a counting statement');
      assert.match(out, /^SELECT count_star\(\) FROM \(SELECT 1 AS x FROM range\(\d+\)\) AS /);
      // not counting statements: left alone, the source is never asked for
      let other = '';
      const never = async () => assert.fail(`not a counting statement: ${other}`);
      for (const text of [
        `${sql} where true`,
        `${sql} limit 1`,
        `select count(*), 1 from ${qi(table.schema)}.${qi(table.name)}`,
        `select count(x) from ${qi(table.schema)}.${qi(table.name)}`,
        `select count(*) from other.${qi(table.name)}`,
        `select distinct count(*) from ${qi(table.schema)}.${qi(table.name)}`,
        `select count(*) from ${qi(table.schema)}.${qi(table.name)} group by 1 + 1`,
        `with w as (select 1) ${sql}`,
        `select count(*) filter (where true) from ${qi(table.schema)}.${qi(table.name)}`,
      ]) {
        other = text;
        assert.equal(await countingStatement(conn, text, catalog, ['main'], 'db', never), null, text);
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
