/**
 * format_type and quote_ident, rebuilt without correlated subqueries for catalog speed (issue 24:
 * pg/catalog/format-type.ts, scalar-macros.ts), answer as PostgreSQL 15 does: format_type for every
 * type of the emulation's pg_type without a modifier, and with the modifiers of each type that takes
 * one (and of its array); quote_ident for every keyword PostgreSQL lists and names around them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { installCompat } from '../src/pg/catalog/install.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';

let cluster: PgCluster;
let client: pg.Client;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

before(async () => {
  cluster = await startPgCluster();
  client = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.user, database: cluster.database });
  await client.connect();
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  await installCompat(conn);
});

after(async () => {
  conn?.closeSync();
  instance?.closeSync();
  await client?.end();
  await cluster?.stop();
});

/** [oid, typmod] pairs → format_type's answer, from DuckDB's emulation and from PostgreSQL. */
async function both(pairs: readonly (readonly [number, number | null])[]): Promise<[string[], string[]]> {
  const values = pairs.map(([o, m]) => `(${o}, ${m === null ? 'NULL' : m})`).join(', ');
  const ours = (
    await conn.runAndReadAll(
      `SELECT fdl_pg.pgcat.format_type(o, m) FROM (VALUES ${values}) v(o, m) ORDER BY o, m NULLS FIRST`,
    )
  )
    .getRows()
    .map((r) => String(r[0]));
  const theirs = (
    await client.query<{ f: string }>(
      `SELECT format_type(o::oid, m::int) AS f FROM (VALUES ${values}) v(o, m) ORDER BY o, m NULLS FIRST`,
    )
  ).rows.map((r) => r.f);
  return [ours, theirs];
}

test('format_type of every type without a modifier, as PostgreSQL 15', async () => {
  const oids = (await conn.runAndReadAll('SELECT oid FROM fdl_pg.pgcat._types ORDER BY oid'))
    .getRows()
    .map((r) => Number(r[0]));
  assert.ok(oids.length > 100, `${oids.length} types`);
  const [ours, theirs] = await both(oids.flatMap((o) => [[o, null] as const, [o, -1] as const]));
  assert.deepEqual(ours, theirs);
});

test('format_type with modifiers, as PostgreSQL 15', async () => {
  // typmods each type accepts: numeric packs precision and scale, the characters length + 4, times and bits as is
  const typmods: Record<number, number[]> = {};
  for (const o of [1700, 1231]) typmods[o] = [4, 5, 10 * 65536 + 2 + 4, 5 * 65536 + 4];
  for (const o of [1043, 1015, 1042, 1014]) typmods[o] = [4, 5, 14];
  for (const o of [1114, 1115, 1184, 1185, 1083, 1183, 1266, 1270]) typmods[o] = [0, 3, 6];
  for (const o of [1560, 1561, 1562, 1563]) typmods[o] = [1, 8];
  const pairs = Object.entries(typmods).flatMap(([o, ms]) => ms.map((m) => [Number(o), m] as const));
  const [ours, theirs] = await both(pairs);
  assert.deepEqual(ours, theirs);
});

test('quote_ident of every keyword and of names around them, as PostgreSQL 15', async () => {
  const words = (await client.query<{ word: string }>('SELECT word FROM pg_get_keywords()')).rows.map((r) => r.word);
  const names = [...words, ...words.map((w) => `${w}x`), 'abc', 'Abc', 'a b', 'x"y', '_a1$', '1a', '', 'user_name'];
  const list = names.map((n) => `'${n.replace(/'/g, "''")}'`).join(', ');
  const ours = (await conn.runAndReadAll(`SELECT fdl_pg.pgcat.quote_ident(unnest([${list}]))`))
    .getRows()
    .map((r) => String(r[0]));
  const theirs = (await client.query<{ q: string }>(`SELECT quote_ident(unnest(ARRAY[${list}])) AS q`)).rows.map(
    (r) => r.q,
  );
  assert.deepEqual(ours, theirs);
});
