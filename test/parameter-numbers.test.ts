/**
 * A parameter number no Bind can supply is refused from the text (text/parameter-numbers.ts): Parse of
 * `select $2000000000` had held the event loop 40 s and 1.4 GB in loops sized by the highest number
 * (attacker review, session 56), and `$0` was accepted where PostgreSQL says 42P02.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, TRUST_ANN_READS_BASIC, type RunningGateway } from './support/gateway.js';

describe('parameter numbers', () => {
  let gw: RunningGateway;
  let c: pg.Client;
  before(async () => {
    gw = await serveBasic([], { config: TRUST_ANN_READS_BASIC });
    c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
    await c.connect();
  });
  after(async () => {
    await c?.end();
    await gw?.stop();
  });

  test('$0 and numbers past 65,535 are 42P02 at once; the session goes on', async () => {
    for (const sql of [
      'select $2000000000',
      'select $0',
      'select $65536',
      'select 1 where $99999999999999999999 = 1',
    ]) {
      const t = Date.now();
      await assert.rejects(
        c.query(sql),
        { code: '42P02', message: `there is no parameter ${/\$\d+/.exec(sql)![0]}` },
        sql,
      );
      assert.ok(Date.now() - t < 2_000, `${sql}: ${Date.now() - t} ms`);
    }
    assert.deepEqual((await c.query('select $1::int + 1 as v', [41])).rows, [{ v: 42 }]);
    assert.deepEqual((await c.query(`select '$2000000000' as s, $$ $0 $$ as d`)).rows, [
      { s: '$2000000000', d: ' $0 ' },
    ]);
  });
});
