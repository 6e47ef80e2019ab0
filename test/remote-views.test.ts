/**
 * A remote version's views are rebuilt per statement (versions/remote-tables.ts): a count-only view
 * for `count(*)`, a view over one statement's files. A statement prepared once (protocol Parse, SQL
 * PREPARE, a cursor) and run later must read its own files, whatever other sessions ran meanwhile,
 * and nothing another statement's view answered may enter the shared result cache.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';

const REPO = join(FIXTURES, 'repos', 'partitioned');
const BY_CATEGORY = 'select category, count(*)::int as c from ev group by 1 order by 1';
const COUNT_ALL = 'select count(*) from ev';
const ONE_MONTH = "select count(*) from ev where ts >= '2024-07-01' and ts < '2024-08-01'";

describe('statements prepared over a remote version keep their own view (s3rver)', () => {
  let s3: S3Server;
  let gw: RunningGateway;
  const clients: pg.Client[] = [];
  let want: unknown[];

  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'r@main' });
    await c.connect();
    clients.push(c);
    return c;
  }

  before(async () => {
    s3 = await startS3('lake');
    await s3.upload(REPO, 'partitioned/');
    const work = await mkdtemp(join(tmpdir(), 'fdl-remote-views-'));
    gw = await startGateway(
      ['--repo', 'r=s3://lake/partitioned/', ...s3Flags(s3.endpoint), '--cache-dir', join(work, 'cache')],
      { env: S3_ENV },
    );
    const c = await client();
    await c.query("set fdl.result_cache = 'off'");
    want = (await c.query(BY_CATEGORY)).rows;
    assert.ok(want.length > 1 && want.every((r) => (r as { category: unknown }).category !== null));
  });
  after(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await gw?.stop();
    await s3?.close();
  });

  it("a named statement (Parse once), an EXECUTE and a cursor answer as before after other sessions' count(*) and one-month statements", async () => {
    const a = await client();
    const b = await client();
    await a.query("set fdl.result_cache = 'off'");
    const s1 = { name: 's1', text: BY_CATEGORY };
    assert.deepEqual((await a.query(s1)).rows, want);
    await a.query(`prepare p as ${BY_CATEGORY}`);
    for (const other of [COUNT_ALL, ONE_MONTH, COUNT_ALL]) {
      await b.query(other);
      assert.deepEqual((await a.query(s1)).rows, want, `named statement after ${other}`);
      await b.query(other);
      assert.deepEqual((await a.query('execute p')).rows, want, `EXECUTE after ${other}`);
      await a.query('begin');
      await a.query(`declare cur cursor for ${BY_CATEGORY}`);
      await b.query(other);
      assert.deepEqual((await a.query('fetch all from cur')).rows, want, `cursor after ${other}`);
      await a.query('commit');
    }
  });

  it('a named statement run with the cache back on after another session narrowed the view records (and serves) the right rows', async () => {
    const a = await client();
    const b = await client();
    const text = `${BY_CATEGORY} /* recorded */`;
    await a.query("set fdl.result_cache = 'off'");
    assert.deepEqual((await a.query({ name: 's2', text })).rows, want);
    // the count-only view, then one over a month's files only
    await b.query(COUNT_ALL);
    await b.query(ONE_MONTH);
    await a.query("set fdl.result_cache = 'on'");
    assert.deepEqual((await a.query({ name: 's2', text })).rows, want);
    const c = await client();
    assert.deepEqual((await c.query({ name: 's2', text })).rows, want, 'a later session, from the cache');
  });
});
