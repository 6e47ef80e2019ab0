/**
 * Session connections are kept per DuckDB instance and handed to the next session
 * (engine/session-connections.ts): the guard macros are created once per connection, not per
 * session, and nothing a session did on its connection reaches the next one. Real DuckDB, sealed as
 * the gateway seals it; the gateway-level half (through `fdl serve`) is in statement-work.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connectSession, createEngine, endSession, sealEngine } from '../src/engine/engine.js';
import {
  idleSessionConnections,
  probeSessionEngine,
  retireSessionConnections,
} from '../src/engine/session-connections.js';
import { COST_LIMIT_PHRASE } from '../src/engine/cost-guards.js';
import { workCount } from '../src/stages.js';

/** What a session can see of its connection's state. */
async function observe(c: DuckDBConnection): Promise<unknown[]> {
  const r = await c.runAndReadAll(`SELECT current_database(), current_schema(), current_setting('search_path'),
    current_setting('TimeZone'), (SELECT count(*) FROM duckdb_variables())::INT,
    (SELECT count(*) FROM duckdb_databases() WHERE database_name = 'v')::INT`);
  return r.getRows()[0]!;
}

/** Two values of random() from two statements. */
async function randoms(c: DuckDBConnection): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 2; i++) out.push(Number((await c.runAndReadAll('SELECT random()')).getRows()[0]![0]));
  return out;
}

describe('session connections: kept per instance, reset between sessions', () => {
  let dir: string;
  let engine: DuckDBInstance;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fdl-session-conns-'));
    engine = await createEngine({ threads: 1, tempDirectory: join(dir, 'tmp') });
    await sealEngine(engine, [join(dir, 'data')]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('five sessions one after another: the guards are created once, on the one connection they share', async () => {
    const installs = workCount('guard_install');
    for (let i = 0; i < 5; i++) {
      const c = await connectSession(engine);
      await assert.rejects(c.run("SELECT printf('%0500000000d', 1)"), new RegExp(COST_LIMIT_PHRASE));
      assert.equal(Number((await c.runAndReadAll("SELECT levenshtein('kitten', 'sitting')")).getRows()[0]![0]), 3);
      await endSession(c);
    }
    assert.equal(workCount('guard_install') - installs, 1);
    assert.equal(idleSessionConnections(engine), 1);
    // Two at once need two connections; both are kept afterwards.
    const [a, b] = await Promise.all([connectSession(engine), connectSession(engine)]);
    assert.equal(workCount('guard_install') - installs, 2);
    await Promise.all([endSession(a!), endSession(b!)]);
    assert.equal(idleSessionConnections(engine), 2);
  });

  test('nothing a session set on its connection reaches the next session; the old handle reaches nothing', async () => {
    // An instance of its own: one connection, which every session here takes in turn.
    const engine = await createEngine({ threads: 1, tempDirectory: join(dir, 'tmp2') });
    await sealEngine(engine, [join(dir, 'data')]);
    const fresh = await connectSession(engine);
    const clean = await observe(fresh);
    await endSession(fresh);
    // A second connection sees what a session left on the shared instance (ATTACH is instance-wide).
    const other = await engine.connect();
    await other.run("ATTACH ':memory:' AS v; CREATE SCHEMA v.s; CREATE TABLE v.s.t AS SELECT 1 AS x");
    // What seed 0.25 gives a connection's first and second statement.
    await other.run('SELECT setseed(0.25)');
    const seeded = await randoms(other);

    const installs = workCount('guard_install');
    const a = await connectSession(engine);
    await a.run(`USE v; SET search_path = 'v.s'; SET TimeZone = 'Asia/Tokyo'; SET VARIABLE "pg_myapp.tenant" = 'a';
      SET VARIABLE pg_user = 'ann'`);
    await a.run('SELECT setseed(0.25)');
    assert.equal(Number((await a.runAndReadAll('SELECT random()')).getRows()[0]![0]), seeded[0]);
    const statement = await a.prepare('SELECT x FROM t');
    const pending = await a.startStream("SELECT repeat('x', 1000) FROM range(100000)"); // left unread
    assert.ok(pending);
    await endSession(a);

    const b = await connectSession(engine);
    assert.equal(workCount('guard_install'), installs, 'the next session got the same connection');
    assert.equal(idleSessionConnections(engine), 0);
    assert.deepEqual(await observe(b), [...clean.slice(0, 5), 1]);
    // Not the second value of seed 0.25: the generator was reseeded.
    assert.notEqual((await randoms(b))[0], seeded[1]);
    await assert.rejects(b.run('SELECT x FROM t'), /Table with name t does not exist/);
    // The guards are still the connection's.
    await assert.rejects(b.run("SELECT repeat('ab', n) FROM (VALUES (1000000)) t(n)"), new RegExp(COST_LIMIT_PHRASE));

    // The first session's handle and statement reach nothing; its stale interrupt is a no-op.
    await assert.rejects(async () => a.run('SELECT 1'), /connection disconnected/);
    assert.doesNotThrow(() => a.interrupt());
    await assert.rejects(async () => statement.run());
    assert.equal(Number((await b.runAndReadAll('SELECT 41 + 1')).getRows()[0]![0]), 42);
    await endSession(b);
    await other.run('DETACH v');
    other.disconnectSync();
  });

  test("the instance's baseline variables are held between sessions: a value changed is set back, one removed comes back, any other goes", async () => {
    const engine = await createEngine({ threads: 1 });
    const baseline = new Map([
      ['pg_datestyle', 'ISO, MDY'],
      ['pg_application_name', ''],
    ]);
    const vars = async (c: DuckDBConnection) =>
      (await c.runAndReadAll("SELECT name || '=' || value FROM duckdb_variables() ORDER BY name")).getRows().flat();
    const a = await connectSession(engine, baseline);
    assert.deepEqual(await vars(a), ['pg_application_name=', 'pg_datestyle=ISO, MDY']);
    await a.run(
      `SET VARIABLE pg_datestyle = 'German'; RESET VARIABLE pg_application_name; SET VARIABLE "pg_myapp.tenant" = 'a'`,
    );
    await endSession(a);
    assert.equal(idleSessionConnections(engine), 1);
    const installs = workCount('guard_install');
    const b = await connectSession(engine, baseline);
    assert.equal(workCount('guard_install'), installs);
    assert.deepEqual(await vars(b), ['pg_application_name=', 'pg_datestyle=ISO, MDY']);
    await endSession(b);
  });

  test('variables sessions left before are undone without reading them; one never seen before is read and undone too', async () => {
    const engine = await createEngine({ threads: 1 });
    const baseline = new Map([['pg_datestyle', 'ISO, MDY']]);
    const vars = async (c: DuckDBConnection) =>
      (await c.runAndReadAll("SELECT name || '=' || value FROM duckdb_variables() ORDER BY name")).getRows().flat();
    // the first session's leftovers are read and remembered; the next ones leave those and a new one
    const sets = [
      `SET VARIABLE pg_user = 'ann'; SET VARIABLE pg_datestyle = 'German'`,
      `SET VARIABLE pg_user = 'bob'; SET VARIABLE pg_datestyle = 'SQL'`,
      `SET VARIABLE pg_user = 'cy'; SET VARIABLE "pg_myapp.tenant" = 'c'; RESET VARIABLE pg_datestyle`,
      `SET VARIABLE pg_user = 'di'; SET VARIABLE "pg_myapp.tenant" = 'd'`,
    ];
    const installs = workCount('guard_install');
    for (const set of sets) {
      const c = await connectSession(engine, baseline);
      assert.deepEqual(await vars(c), ['pg_datestyle=ISO, MDY']);
      await c.run(set);
      await endSession(c);
      assert.equal(idleSessionConnections(engine), 1);
    }
    const last = await connectSession(engine, baseline);
    assert.deepEqual(await vars(last), ['pg_datestyle=ISO, MDY']);
    assert.equal(workCount('guard_install') - installs, 1, 'one connection throughout');
    await endSession(last);
  });

  test('a session interrupted mid-statement leaves no interrupt for the next one', async () => {
    const engine = await createEngine({ threads: 1 });
    const a = await connectSession(engine);
    const long = a.runAndReadAll('SELECT count(*) FROM range(5000000000) WHERE range % 7 = 3');
    await new Promise((r) => setTimeout(r, 200));
    a.interrupt();
    await assert.rejects(long, /INTERRUPT/i);
    a.interrupt(); // a second, late one, with nothing running: DuckDB must not carry it to the next statement
    await endSession(a);
    assert.equal(idleSessionConnections(engine), 1);
    const b = await connectSession(engine);
    assert.equal(idleSessionConnections(engine), 0, 'the next session got the same connection');
    const r = await b.runAndReadAll('SELECT count(*) FROM range(3000000) WHERE range % 7 = 3');
    assert.equal(Number(r.getRows()[0]![0]), 428571);
    await endSession(b);
  });

  test("the engine probe after an internal error runs beside the session: a stream open on the session's connection reads on", async () => {
    const own = await createEngine({ threads: 1 });
    const c = await connectSession(own);
    const rows = async (r: Awaited<ReturnType<DuckDBConnection['stream']>>) => (await r.fetchChunk())?.rowCount ?? 0;
    const stream = await c.stream('SELECT range AS i FROM range(100000)');
    assert.equal(await rows(stream), 2048);
    await probeSessionEngine(c);
    assert.equal(await rows(stream), 2048, 'the stream goes on after the probe');
    // What the probe was before: a statement on the session's own connection, which ended the stream (no error, no rows).
    await c.run('SELECT 1');
    assert.equal(await rows(stream), 0);
    await endSession(c);
    // An instance replaced (engines.ts retire): its idle connections are let go of, a session's is not kept, and the probe says so.
    const d = await connectSession(own);
    const e = await connectSession(own);
    await endSession(e);
    assert.equal(idleSessionConnections(own), 1);
    retireSessionConnections(own);
    own.closeSync();
    assert.equal(idleSessionConnections(own), 0);
    await assert.rejects(probeSessionEngine(d), /instance closed/);
    await endSession(d);
    assert.equal(idleSessionConnections(own), 0);
  });

  test('a connection whose reset leaves something behind is disconnected, not kept', async () => {
    // Unsealed, a session-scoped setting the reset does not undo can be changed (sealed, only TimeZone can).
    const unsealed = await createEngine({ threads: 1 });
    const c = await connectSession(unsealed);
    await endSession(c);
    assert.equal(idleSessionConnections(unsealed), 1);
    const d = await connectSession(unsealed);
    await d.run("SET SESSION default_null_order = 'nulls_first'");
    await endSession(d);
    assert.equal(idleSessionConnections(unsealed), 0);
    const e = await connectSession(unsealed);
    const r = await e.runAndReadAll("SELECT current_setting('default_null_order')");
    assert.equal(String(r.getRows()[0]![0]).toLowerCase(), 'nulls_last_on_asc_first_on_desc');
    await endSession(e);
  });
});
