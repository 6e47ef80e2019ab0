/**
 * fdl delete / fdl update against the real extension: the basic fixture's request version (an
 * UPDATE the extension wrote with Parquet delete files) and its March cleanup (deletes and updates)
 * are replayed on a branch at v2 with our writer; the catalog layout must match the extension's and
 * the lake reader must give the fixture's recorded answers. Then the partial delete file of a second
 * delete, a whole-file delete, the gateway serving old and new versions, and refusals that leave the
 * repository byte for byte unchanged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { changeRows } from '../src/host/row-change.js';
import { logCommand } from '../src/host/log.js';
import { verifyRepository } from '../src/host/verify.js';
import { client, copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { FIXTURES, openVersion, sortRows } from './support/lake-fixtures.js';
import { treeBytes } from './support/tree.js';

const run = promisify(execFile);
const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../src/cli/main.js');
const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as {
  repos: { basic: { refs: Record<string, string> } };
};
const REFS = manifest.repos.basic.refs;
const V2 = REFS['refs/tags/v2']!;
const REQUEST = REFS['refs/requests/1']!;
const MARCH = REFS['refs/heads/main']!;

interface Query {
  object: string;
  kind: string;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
}
const expected = (id: string) =>
  JSON.parse(readFileSync(path.join(FIXTURES, 'expected', 'basic', `${id}.json`), 'utf8')) as { queries: Query[] };
const fdl = (...args: string[]) => run(process.execPath, [CLI, ...args]);
const head = (root: string, branch: string) => readFileSync(path.join(root, 'refs', 'heads', branch), 'utf8').trim();
const quiet = { progress: () => undefined };

type Row = Record<string, unknown>;
async function query(sql: string): Promise<Row[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}
const cat = (root: string, id: string) =>
  `ATTACH '${path.join(root, 'versions', id, 'ducklake.duckdb')}' AS c (READ_ONLY); `;
async function catalogRows(root: string, id: string, sql: string): Promise<Row[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    await conn.run(cat(root, id));
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** Every recorded query of a fixture version, run by the lake reader on version `id` of `root`. */
async function assertServesLike(root: string, id: string, oracle: string): Promise<void> {
  const o = await openVersion({
    root,
    dataDir: 'data/',
    catalogFile: path.join(root, 'versions', id, 'ducklake.duckdb'),
  });
  try {
    for (const q of expected(oracle).queries) {
      const r = await o.conn.runAndReadAll(q.sql);
      assert.deepEqual(r.columnNames(), q.columns, `columns of ${q.sql}`);
      assert.deepEqual(
        sortRows(r.getRowsJson() as unknown[][]),
        sortRows(q.rows ?? []),
        `${q.object} (${q.kind}) of ${id} must equal the extension's ${oracle}`,
      );
    }
  } finally {
    o.close();
  }
}

describe('fdl update / fdl delete: the real extension is the oracle', () => {
  const repos = copyFixtures('repos/basic');
  const root = repos.path('repos/basic');
  const fixture = path.join(FIXTURES, 'repos', 'basic');
  after(() => repos.cleanup());

  it('an UPDATE writes what the extension wrote for the request version (catalog rows, delete files, row ids) and serves its answers', async () => {
    await fdl('branch', root, 'req', 'refs/tags/v2');
    const out = await fdl(
      'update',
      root,
      '--branch',
      'req',
      '--table',
      'sales.orders',
      '--set',
      'amount = amount * 1.1',
      '--where',
      "status = 'open'",
      '--message',
      '+10% on open orders',
    );
    const id = out.stdout.trim();
    assert.equal(id, head(root, 'req'));
    assert.match(out.stderr, /updated 31 row\(s\): 2 delete file\(s\), 0 data file\(s\) ended, 1 new data file\(s\)/);

    // catalog rows: the same as the extension's but for file names, sizes (file_path holds an absolute path) and times
    const same = async (sql: string, what: string) =>
      assert.deepEqual(await catalogRows(root, id, sql), await catalogRows(fixture, REQUEST, sql), what);
    await same(
      'SELECT table_id, begin_snapshot, end_snapshot, data_file_id, path_is_relative, format, delete_count, encryption_key, partial_max FROM c.ducklake_delete_file ORDER BY data_file_id',
      'ducklake_delete_file',
    );
    await same('SELECT delete_file_id FROM c.ducklake_delete_file ORDER BY 1', 'delete file ids');
    await same('SELECT * EXCLUDE (path) FROM c.ducklake_data_file ORDER BY data_file_id', 'ducklake_data_file');
    await same('SELECT * FROM c.ducklake_table_stats ORDER BY table_id', 'ducklake_table_stats');
    await same(
      'SELECT * FROM c.ducklake_file_column_stats ORDER BY data_file_id, column_id',
      'ducklake_file_column_stats',
    );
    await same('SELECT * EXCLUDE (snapshot_time) FROM c.ducklake_snapshot ORDER BY snapshot_id', 'ducklake_snapshot');
    await same(
      'SELECT snapshot_id, changes_made FROM c.ducklake_snapshot_changes ORDER BY snapshot_id',
      'changes_made',
    );

    // the files: delete files (file_path, pos with the extension's field ids), the new data file's row ids
    const files = async (r: string, v: string, kind: 'delete' | 'data') => {
      const rows = await catalogRows(
        r,
        v,
        `SELECT data_file_id, path FROM c.ducklake_${kind}_file WHERE begin_snapshot = 15 ORDER BY data_file_id`,
      );
      return rows.map((x) => path.join(r, 'data', 'sales', 'orders', String(x.path)));
    };
    const ours = await files(root, id, 'delete');
    const theirs = await files(fixture, REQUEST, 'delete');
    assert.equal(ours.length, 2);
    for (let i = 0; i < ours.length; i++) {
      const schema = (f: string) => query(`SELECT name, field_id, type FROM parquet_schema('${f}') ORDER BY column_id`);
      assert.deepEqual(await schema(ours[i]!), await schema(theirs[i]!), 'delete file schema and field ids');
      const pos = (f: string) => query(`SELECT pos FROM read_parquet('${f}')`);
      assert.deepEqual(await pos(ours[i]!), await pos(theirs[i]!), 'deleted positions, in order');
      const fp = await query(`SELECT DISTINCT file_path FROM read_parquet('${ours[i]}')`);
      assert.equal(fp.length, 1);
      assert.ok(String(fp[0]!.file_path).endsWith('.parquet'), 'file_path names the data file');
    }
    const [ourData] = await files(root, id, 'data');
    const [theirData] = await files(fixture, REQUEST, 'data');
    const dataOf = (f: string) => query(`SELECT * FROM read_parquet('${f}') ORDER BY _ducklake_internal_row_id`);
    assert.deepEqual(
      await dataOf(ourData!),
      await dataOf(theirData!),
      'the new data file: the same rows with the same row ids',
    );
    const schemaOf = (f: string) => query(`SELECT name, field_id, type FROM parquet_schema('${f}') ORDER BY column_id`);
    assert.deepEqual(await schemaOf(ourData!), await schemaOf(theirData!), 'the new data file schema and field ids');

    await assertServesLike(root, id, REQUEST);
    // files.json carries sha256 of every file the version reads, delete files too; verify agrees
    const fj = JSON.parse(readFileSync(path.join(root, 'versions', id, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: Record<string, unknown>[] }>;
    };
    const orders = fj.tables['sales.orders']!.files;
    assert.equal(orders.length, 3);
    for (const f of orders) assert.match(String(f.sha256), /^[0-9a-f]{64}$/);
    assert.equal(orders.filter((f) => /^[0-9a-f]{64}$/.test(String(f.delete_file_sha256))).length, 2);
    const v = await verifyRepository(root, { report: () => undefined });
    assert.deepEqual(v.problems, []);
    assert.match(await logCommand(root, 'refs/heads/req'), /\+10% on open orders/);
  });

  it("the March cleanup (deletes and updates over Parquet and inlined rows) replayed gives the extension's answers", async () => {
    await fdl('branch', root, 'mar', 'refs/tags/v2');
    const steps: [string, string, string?][] = [
      ['sales.orders', 'order_id % 7 = 0'],
      ['sales.customers', 'customer_id <= 3', "country = 'XX', vip = true"],
      ['main.all_types', 'id = 7'],
      ['main.all_types', 'id = 8', "s = 'updated'"],
      ['main.all_types_inlined', 'id = 5'],
    ];
    for (const [table, where, set] of steps) {
      await changeRows(root, { ...quiet, branch: 'mar', table, where, set });
    }
    await assertServesLike(root, head(root, 'mar'), MARCH);
    // the previous versions are untouched: v2 still gives v2's answers
    await assertServesLike(root, V2, V2);
  });

  it("a second delete on a file writes a partial delete file (the extension's layout); deleting every row ends the file", async () => {
    const before = head(root, 'req');
    const r = await changeRows(root, { ...quiet, branch: 'req', table: 'sales.orders', where: 'order_id % 5 = 0' });
    const rows = await catalogRows(root, r.versionId, 'SELECT * FROM c.ducklake_delete_file WHERE data_file_id = 4');
    assert.equal(rows.length, 1, 'one delete file per data file: the old row is replaced');
    const [d] = rows;
    assert.equal(Number(d!.begin_snapshot), 15, 'begin_snapshot: the first delete');
    assert.equal(Number(d!.partial_max), 16, 'partial_max: the second delete');
    const file = path.join(root, 'data', 'sales', 'orders', String(d!.path));
    const snaps = await query(
      `SELECT _ducklake_internal_snapshot_id AS s, count(*) AS n FROM read_parquet('${file}') GROUP BY 1 ORDER BY 1`,
    );
    assert.deepEqual(
      snaps.map((x) => Number(x.s)),
      [15, 16],
    );
    assert.equal(
      Number(d!.delete_count),
      snaps.reduce((a, x) => a + Number(x.n), 0),
    );
    const schema = await query(
      `SELECT name, field_id FROM parquet_schema('${file}') WHERE field_id IS NOT NULL ORDER BY column_id`,
    );
    const theirs = path.join(
      FIXTURES,
      'repos',
      'deletes',
      'data',
      'main',
      'items',
      'ducklake-01a23632-aba0-7121-8570-884af488b6ff-delete.parquet',
    );
    assert.deepEqual(
      schema,
      await query(
        `SELECT name, field_id FROM parquet_schema('${theirs}') WHERE field_id IS NOT NULL ORDER BY column_id`,
      ),
      "partial delete file: the extension's columns and field ids",
    );
    // served: the request version's rows minus the deleted ones (the oracle's rows, filtered)
    const req = expected(REQUEST).queries.find((q) => q.object === 'sales.orders' && q.kind === 'rows')!;
    const o = await openVersion({
      root,
      dataDir: 'data/',
      catalogFile: path.join(root, 'versions', r.versionId, 'ducklake.duckdb'),
    });
    try {
      const got = (await o.conn.runAndReadAll(req.sql)).getRowsJson() as unknown[][];
      assert.deepEqual(sortRows(got), sortRows(req.rows!.filter((x) => Number(x[0]) % 5 !== 0)));
    } finally {
      o.close();
    }

    // every row left in data file 5 (order ids 51..80 that were not updated) goes: the file ends with its delete file
    const w = await changeRows(root, { ...quiet, branch: 'req', table: 'sales.orders', where: 'order_id > 50' });
    assert.equal(w.endedFiles, 1);
    const ended = await catalogRows(
      root,
      w.versionId,
      'SELECT end_snapshot FROM c.ducklake_data_file WHERE data_file_id = 5 UNION ALL SELECT end_snapshot FROM c.ducklake_delete_file WHERE data_file_id = 5',
    );
    assert.deepEqual(
      ended.map((x) => Number(x.end_snapshot)),
      [17, 17],
    );
    const left = await openVersion({
      root,
      dataDir: 'data/',
      catalogFile: path.join(root, 'versions', w.versionId, 'ducklake.duckdb'),
    });
    try {
      const got = (await left.conn.runAndReadAll(req.sql)).getRowsJson() as unknown[][];
      assert.deepEqual(sortRows(got), sortRows(req.rows!.filter((x) => Number(x[0]) % 5 !== 0 && Number(x[0]) <= 50)));
    } finally {
      left.close();
    }
    assert.notEqual(before, w.versionId);
  });
});

describe('fdl delete: served by the gateway, old versions by their refs', () => {
  const repos = copyFixtures('repos/basic');
  const root = repos.path('repos/basic');
  let gw: RunningGateway;
  before(async () => {
    await fdl('tag', root, 'before-delete');
    await changeRows(root, { ...quiet, table: 'sales.customers', where: "country = 'FR'", message: 'no more FR' });
    await changeRows(root, { ...quiet, table: 'sales.customers', where: 'customer_id = 2', set: "name = 'Renamed'" });
    await fdl('tag', root, 'after-delete');
    gw = await startGateway(['--repo', `basic=${root}`]);
  });
  after(async () => {
    await gw.stop();
    repos.cleanup();
  });

  it('deleted rows are gone, updated rows changed; the previous tag still shows the old rows', async () => {
    const march = expected(MARCH).queries.find((q) => q.object === 'sales.customers' && q.kind === 'rows')!;
    const now = await client(gw, 'basic@after-delete');
    const old = await client(gw, 'basic@before-delete');
    try {
      const sql = 'SELECT customer_id::text AS id, name, country FROM sales.customers ORDER BY customer_id';
      const a = (await now.query(sql)).rows as { id: string; name: string; country: string }[];
      const b = (await old.query(sql)).rows as { id: string; name: string; country: string }[];
      const fr = march.rows!.filter((x) => x[3] === 'FR').length;
      assert.ok(fr > 0);
      assert.equal(a.filter((x) => x.country === 'FR').length, 0, 'no FR customer left');
      assert.equal(b.filter((x) => x.country === 'FR').length, fr, 'the previous tag still has them');
      assert.equal(a.find((x) => x.id === '2')!.name, 'Renamed');
      assert.equal(b.find((x) => x.id === '2')!.name, 'Customer 2');
      assert.equal(a.length, b.length - b.filter((x) => x.country === 'FR').length);
    } finally {
      await now.end();
      await old.end();
    }
  });
});

describe('fdl delete / update refusals leave the repository unchanged', () => {
  const repos = copyFixtures('repos/basic');
  const root = repos.path('repos/basic');
  after(() => repos.cleanup());

  const refused = async (what: string, fn: () => Promise<unknown>, message: RegExp) => {
    const before = treeBytes(root);
    await assert.rejects(fn(), message, what);
    assert.deepEqual(treeBytes(root), before, `${what}: nothing written, nothing left behind`);
  };

  it('no matching row, bad SQL, a hidden second statement, a failure at any later step, a tampered data file', async () => {
    // one change first: its files.json records the sha256 of every file (the fixture's records none)
    await changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id = 2' });
    await refused(
      'no match',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id < 0' }),
      /no row of sales\.orders matches/,
    );
    await refused(
      'unknown column',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'nope = 1' }),
      /--where: .*nope/,
    );
    await refused(
      'a predicate that is not boolean (DuckDB would cast it to true: every row)',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id' }),
      /--where must be a boolean predicate, not bigint/,
    );
    await refused(
      'second statement',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'true; DELETE FROM x' }),
      /--where/,
    );
    await refused(
      'bad --set',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id = 1', set: 'nope = 1' }),
      /--set: .*nope/,
    );
    await refused(
      'unknown table',
      () => changeRows(root, { ...quiet, table: 'sales.nope', where: 'true' }),
      /has no table sales\.nope/,
    );
    for (const at of ['data', 'catalog', 'version']) {
      await refused(
        `killed at ${at}`,
        () =>
          changeRows(root, {
            ...quiet,
            table: 'sales.orders',
            where: 'order_id = 1',
            set: 'qty = 0',
            step: (s) => {
              if (s === at) throw new Error(`killed at ${at}`);
            },
          }),
        /killed/,
      );
    }
    const key = path.join(path.dirname(new URL(import.meta.url).pathname), 'no-such-key');
    await refused(
      'missing --sign-key',
      () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id = 1', signKey: key }),
      /sign-key/,
    );
    // a data file that no longer has the bytes files.json signed is never read to derive deletes
    const f = path.join(root, 'data', 'sales', 'orders', 'ducklake-01a23632-9c3c-70f7-9197-bb573d7471c5.parquet');
    const bytes = readFileSync(f);
    const bad = Buffer.from(bytes);
    bad[10] = bad[10]! ^ 0xff;
    writeFileSync(f, bad);
    try {
      await refused(
        'tampered data file',
        () => changeRows(root, { ...quiet, table: 'sales.orders', where: 'order_id = 1' }),
        /does not match the sha256/,
      );
    } finally {
      writeFileSync(f, bytes);
    }
  });
});
