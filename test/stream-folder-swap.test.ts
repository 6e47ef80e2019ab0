/**
 * A run whose data file's folder is renamed away, replaced by a folder holding another file under the same name, and
 * renamed back while DuckDB reads (issue 23): every file's own identity is the verified one again, so no stat sees it.
 * The gateway watches the names on the way to the run's files (versions/folder-watch.ts): the run ends XX001 instead
 * of completing — streamed rows (the swap made deterministic by suspending the portal with an Execute row limit),
 * COPY … TO STDOUT (held by the client not reading) and rows a cursor read ahead. A publish into the repository
 * during a run (new files beside the run's, a new version, the branch moved) changes none of those names: the run
 * completes with every row (session 55's check of the folders' ctime ended it XX001).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { buildDemo, demoDataDir } from '../src/host/demo.js';
import { importData } from '../src/host/import.js';
import { serve, type Service } from './support/service.js';
import { buildBind, RawPg, splitDataRow, type RawMessage } from './support/raw-pg.js';

let dir: string;
let s: Service;
const repo = () => join(dir, 'demo');
const ordersFolder = () => join(repo(), 'data', 'sales', 'orders');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fdl-stream-swap-'));
  await buildDemo(repo(), () => undefined);
  s = await serve(['--repo', `demo=${repo()}`, '--data-hashes', 'demo=require', '--cache-dir', join(dir, 'cache')]);
});
after(async () => {
  s?.proc.kill('SIGTERM');
  await s?.exited;
  rmSync(dir, { recursive: true, force: true });
});

/** The folder renamed away, a folder holding a copy of each of its files put under its name, then the genuine back. */
function swapAndBack(folder: string): void {
  renameSync(folder, `${folder}.genuine`);
  cpSync(`${folder}.genuine`, folder, { recursive: true });
  renameSync(folder, `${folder}.forged`);
  renameSync(`${folder}.genuine`, folder);
  rmSync(`${folder}.forged`, { recursive: true });
}

/** A publish into the demo repository: a new data file of sales.orders beside the others, a new version, main moved. */
async function publish(): Promise<void> {
  const data = demoDataDir();
  const keyDir = mkdtempSync(join(dir, 'key-'));
  const key = join(keyDir, 'key');
  copyFileSync(join(data, 'demo_ed25519_DEMO_ONLY'), key);
  chmodSync(key, 0o600);
  await importData(repo(), {
    author: 'demo@fdl.example',
    signKey: key,
    dataset: join(data, 'dataset.json'),
    message: 'more orders',
    tables: [{ schema: 'sales', table: 'orders', file: join(data, 'orders_feb.csv') }],
  });
  rmSync(keyDir, { recursive: true });
}

const code = (m: RawMessage) => (m.code === 'E' ? `E${(m.parsed as { code?: string }).code}` : m.code);

/** Messages' codes (errors with their SQLSTATE) until ReadyForQuery. */
async function untilReady(c: RawPg): Promise<string[]> {
  const codes: string[] = [];
  for (let m = await c.next(); ; m = await c.next()) {
    if (m.code !== 'D' && m.code !== 'd') codes.push(code(m));
    else if (codes[codes.length - 1] !== m.code) codes.push(m.code);
    if (m.code === 'Z') return codes;
  }
}

/** Parse/Bind/Execute of one row, Flush; then `between`, then Execute of the rest and Sync: the codes answered. */
async function suspendedRun(c: RawPg, sql: string, between: () => void | Promise<void>): Promise<string[]> {
  c.send(
    Buffer.concat([serialize.parse({ text: sql }), buildBind({}), serialize.execute({ rows: 1 }), serialize.flush()]),
  );
  const codes: string[] = [];
  for (let m = await c.next(); ; m = await c.next()) {
    codes.push(code(m));
    if (m.code === 's' || m.code === 'E') break;
  }
  await between();
  c.send(Buffer.concat([serialize.execute({ rows: 0 }), serialize.sync()]));
  return [...codes, ...(await untilReady(c))];
}

/** Rows of the orders folder's files, so the run streams (over one chunk of 2,048 rows). */
const streamed = (k: number) => `select o.order_id + ${k} as o from sales.orders o, range(100) r(x)`;

describe('a data folder swapped during a run', () => {
  test('streamed rows: renamed away, replaced and back between two Executes ends XX001, no CommandComplete; untouched, the same run completes', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      const swapped = await suspendedRun(c, streamed(1), () => swapAndBack(ordersFolder()));
      assert.deepEqual(swapped.slice(0, 4), ['1', '2', 'D', 's'], swapped.join(','));
      assert.ok(swapped.includes('EXX001'), `the run ends XX001: ${swapped.join(',')}`);
      assert.ok(!swapped.includes('C'), `no CommandComplete: ${swapped.join(',')}`);
      // the operator's log says so (written after the error reached the client)
      const logged = /"event":"integrity".*renamed or replaced while a statement read it/;
      for (let i = 0; i < 50 && !logged.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(s.stderr(), logged);
      // nothing else changed: the same run, untouched, completes (and the next statement reads the genuine files)
      const plain = await suspendedRun(c, streamed(2), () => undefined);
      assert.deepEqual(plain, ['1', '2', 'D', 's', 'D', 'C', 'Z'], plain.join(','));
    } finally {
      await c.close();
    }
  });

  test('a run the client never finishes: the Execute after the swap ends XX001, not PortalSuspended (attacker review, session 56)', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      c.send(
        Buffer.concat([
          serialize.parse({ text: streamed(7) }),
          buildBind({}),
          serialize.execute({ rows: 1 }),
          serialize.flush(),
        ]),
      );
      const first: string[] = [];
      for (let m = await c.next(); ; m = await c.next()) {
        first.push(code(m));
        if (m.code === 's' || m.code === 'E') break;
      }
      assert.deepEqual(first, ['1', '2', 'D', 's']);
      swapAndBack(ordersFolder());
      // more rows, still suspended, then Sync without reading to the end: PortalSuspended would count them as sent
      c.send(Buffer.concat([serialize.execute({ rows: 10 }), serialize.sync()]));
      const rest = await untilReady(c);
      assert.deepEqual(rest, ['D', 'EXX001', 'Z'], rest.join(','));
      // a cursor the same: the FETCH after the swap fails
      c.send(serialize.query(`BEGIN; DECLARE cur CURSOR FOR ${streamed(8)}; FETCH 1 FROM cur`));
      assert.ok(!(await untilReady(c)).some((x) => x.startsWith('E')));
      swapAndBack(ordersFolder());
      c.send(serialize.query('FETCH 5 FROM cur'));
      const fetched = await untilReady(c);
      assert.ok(fetched.includes('EXX001'), fetched.join(','));
      c.send(serialize.query('ROLLBACK'));
      await untilReady(c);
      // untouched, the same suspended run answers PortalSuspended
      const plain = await suspendedRun(c, streamed(9), () => undefined);
      assert.deepEqual(plain, ['1', '2', 'D', 's', 'D', 'C', 'Z'], plain.join(','));
    } finally {
      await c.close();
    }
  });

  test('a file the run reads renamed away and back (its folder untouched) ends XX001 too', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      const file = join(
        ordersFolder(),
        readdirSync(ordersFolder()).find((f) => f.endsWith('.parquet'))!,
      );
      const swapped = await suspendedRun(c, streamed(3), () => {
        renameSync(file, `${file}.aside`);
        renameSync(`${file}.aside`, file);
      });
      assert.ok(swapped.includes('EXX001') && !swapped.includes('C'), swapped.join(','));
    } finally {
      await c.close();
    }
  });

  test('COPY … TO STDOUT held by a client that does not read: the folder swapped meanwhile ends it XX001, no CopyDone', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      // ~50 MB of rows: far more than the sockets and the gateway's prefetch hold while the client does not read
      const copy = (k: number) =>
        `copy (select o.order_id + ${k}, repeat('x', 1000) from sales.orders o, range(600) r(x)) to stdout`;
      c.send(serialize.query(copy(1)));
      const first = [code(await c.next()), code(await c.next())];
      assert.deepEqual(first, ['H', 'd']);
      c.socket.pause();
      await new Promise((r) => setTimeout(r, 300));
      swapAndBack(ordersFolder());
      c.socket.resume();
      const rest = await untilReady(c);
      assert.ok(rest.includes('EXX001'), `the COPY ends XX001: ${rest.join(',')}`);
      assert.ok(!rest.includes('c') && !rest.includes('C'), `no CopyDone nor CommandComplete: ${rest.join(',')}`);
      c.send(serialize.query(copy(2)));
      const plain = await untilReady(c);
      assert.deepEqual(plain, ['H', 'd', 'c', 'C', 'Z'], plain.join(','));
    } finally {
      await c.close();
    }
  });

  test('rows a cursor read ahead while the folder was swapped: its FETCH ends XX001', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      const run = async (between: () => void) => {
        assert.equal((await c.simple('begin')).error, undefined);
        assert.equal((await c.simple(`declare cur cursor for ${streamed(4)}`)).error, undefined);
        const one = await c.simple('fetch 1 from cur');
        assert.equal(one.dataRows.length, 1);
        between();
        // another statement on the connection: the cursor reads its rest ahead first (cursor-rows.ts parkCursor)
        const other = await c.simple('select count(*) from sales.customers');
        assert.equal(other.error, undefined);
        const rest = await c.simple('fetch all from cur');
        await c.simple('rollback');
        return rest;
      };
      const swapped = await run(() => swapAndBack(ordersFolder()));
      assert.equal(swapped.error?.code, 'XX001', JSON.stringify(swapped.error));
      const plain = await run(() => undefined);
      assert.equal(plain.error, undefined);
      const all = await c.simple(`select count(*) from (${streamed(4)})`);
      assert.equal(plain.dataRows.length, Number(splitDataRow(all.dataRows[0]!)[0]!.toString()) - 1);
    } finally {
      await c.close();
    }
  });

  test('a publish into the repository during a run (new files beside its own, a new version, main moved): the run completes with every row', async () => {
    const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
    try {
      const before = readdirSync(ordersFolder()).length;
      const codes = await suspendedRun(c, streamed(5), publish);
      assert.ok(readdirSync(ordersFolder()).length > before, 'the publish added a file beside the run’s');
      assert.deepEqual(codes, ['1', '2', 'D', 's', 'D', 'C', 'Z'], codes.join(','));
    } finally {
      await c.close();
    }
  });
});
