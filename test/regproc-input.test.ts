/**
 * regproc's input (`'pg_catalog.array_in'::regproc`, to_regproc) counts the functions a name matches in one
 * aggregate (pg/catalog/procedures.ts `matchingProcs`, issue 24): as a list read by a second subquery it was two
 * nested scalar subqueries with DuckDB's grouped one-row checks, and pgjdbc's type query (the cast beside a join)
 * ran 2.5× the same query with the OID written in. The answers are PostgreSQL 15's for every name the emulation
 * knows, bare and qualified, read as constants and as a column.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compatBesidePostgres } from './support/compat-beside-pg.js';

const twin = compatBesidePostgres();

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function duck(sql: string): Promise<unknown[][]> {
  return (await twin.conn.runAndReadAll(sql)).getRows();
}

async function duckError(sql: string): Promise<string> {
  return twin.conn.run(sql).then(
    () => 'no error',
    (e: Error) => e.message,
  );
}

test("a constant's regproc input is planned without a grouped aggregate (one ungrouped count)", async () => {
  for (const call of ['_regproc_in', '_regproc_oid']) {
    const plan = String((await duck(`EXPLAIN SELECT fdl_pg.pgcat.${call}('pg_catalog.array_in')`))[0]![1]);
    assert.equal(plan.match(/HASH_GROUP_BY/g)?.length ?? 0, 0, `${call}:\n${plan}`);
  }
});

test('to_regproc and ::regproc of every name the emulation knows, bare and pg_catalog-qualified, as PostgreSQL 15', async () => {
  const names = (await duck('SELECT DISTINCT proname FROM fdl_pg.pgcat._procsig ORDER BY 1')).map((r) => String(r[0]));
  assert.ok(names.length > 300, `${names.length} names`);
  const inputs = [...names, ...names.map((n) => `pg_catalog.${n}`), 'nosuch', 'pg_catalog.nosuch', 'abs(int4)'];
  const list = inputs.map(literal).join(', ');
  // as a column (a correlated lookup) and each as a constant; how many functions the emulation has by that name
  const column = await duck(
    `SELECT x, CAST(fdl_pg.pgcat.to_regproc(x) AS VARCHAR), len(fdl_pg.pgcat._regproc_matches(x)) FROM (SELECT unnest([${list}]) AS x)`,
  );
  const theirs = new Map(
    (
      await twin.client.query<{ x: string; o: string | null }>(
        `SELECT x, to_regproc(x)::oid::text AS o FROM unnest(ARRAY[${list}]::text[]) u(x)`,
      )
    ).rows.map((r) => [r.x, r.o]),
  );
  let unique = 0;
  let ambiguous = 0;
  for (const [x, ours, matches] of column) {
    const name = String(x);
    const pgOid = theirs.get(name);
    if (pgOid !== null && pgOid !== undefined) {
      // one function of that name in PostgreSQL: the same OID here (the emulation lists a subset of overloads)
      unique++;
      assert.equal(ours, pgOid, name);
      const [[constant]] = (await duck(`SELECT CAST(fdl_pg.pgcat._regproc_in(${literal(name)}) AS VARCHAR)`)) as [
        [unknown],
      ];
      assert.equal(constant, pgOid, name);
    } else if (Number(matches ?? 0) !== 1) {
      // none or several here: NULL, and regproc's input refuses it with PostgreSQL's message
      assert.equal(ours, null, name);
      const pgMessage = await twin.client.query(`SELECT ${literal(name)}::regproc`).then(
        () => 'no error',
        (e: Error) => e.message,
      );
      if (Number(matches ?? 0) > 1) ambiguous++;
      assert.equal(
        (await duckError(`SELECT fdl_pg.pgcat._regproc_in(${literal(name)})`)).replace(/^Invalid Input Error: /, ''),
        pgMessage,
        name,
      );
    }
  }
  assert.ok(unique > 300 && ambiguous > 20, `${unique} unique, ${ambiguous} ambiguous`);
});
