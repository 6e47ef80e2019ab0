/**
 * What a user's portals hold in the gateway's own memory is bounded across their sessions
 * (wire/held-bytes.ts). An attacker review: 16 idle SCROLL WITH HOLD cursors kept 64 MiB each
 * (RSS 1.6 GB), 120 suspended portals held a 20 MB parameter each (2.5 GB), and every other user's
 * statement then failed 53200.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'pg-protocol';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { buildBind, RawPg } from './support/raw-pg.js';

const USER_HELD_BYTES = 256 * 1024 * 1024;
const MB = 1024 * 1024;

describe("a user's parameters and kept rows: one budget across their sessions", () => {
  let gw: ContainmentGateway;
  before(async () => {
    gw = await containmentGateway({ statementTimeoutMs: 60000 });
  });
  after(() => gw?.stop());

  test('suspended portals holding 20 MB parameters: the Bind past the budget is refused 53400, the session goes on', async () => {
    const sessions = await Promise.all(
      [1, 2].map(() => RawPg.connect({ port: gw.s.port, user: 'eve', database: 'basic' })),
    );
    const big = 'x'.repeat(20 * MB);
    const bound: number[] = [];
    let refused: { code: string; message: string } | undefined;
    // Two sessions of one user, eight portals each: 16 × 20 MB passes the 256 MiB budget on the way.
    for (const [s, raw] of sessions.entries()) {
      await raw.simple('begin');
      raw.send(serialize.parse({ name: 'big', text: 'select length($1::text) as n', types: [25] }));
      raw.send(serialize.sync());
      assert.equal((await raw.untilReady()).error, undefined);
      for (let i = 0; i < 8 && !refused; i++) {
        raw.send(buildBind({ portal: `p${i}`, statement: 'big', params: [big] }));
        raw.send(serialize.execute({ portal: `p${i}`, rows: 1 }));
        raw.send(serialize.flush());
        raw.send(serialize.sync());
        const r = await raw.untilReady();
        if (r.error) refused = r.error;
        else bound.push(s * 8 + i);
      }
    }
    assert.equal(refused?.code, '53400', JSON.stringify(refused));
    assert.match(refused!.message, new RegExp(`the limit is ${USER_HELD_BYTES}`));
    assert.equal(bound.length, Math.floor(USER_HELD_BYTES / (20 * MB)));
    // Nothing changed: the refused session rolls back and answers; the other still holds its portals.
    const last = sessions[1]!;
    assert.equal((await last.simple('rollback')).error, undefined);
    assert.deepEqual((await last.simple('select 7 as n')).dataRows.length, 1);
    // Its sessions' portals closed, the user binds again.
    assert.equal((await sessions[0]!.simple('rollback')).error, undefined);
    const again = await last.query('select length($1::text) as n', { params: [big], paramTypes: [25] });
    assert.equal(again.error, undefined);
    await Promise.all(sessions.map((s) => s.close()));
  });

  test('SCROLL WITH HOLD cursors: the ones past the budget keep their newest rows only (going back: 54000); the first keep theirs', async () => {
    const eve = await gw.login('eve');
    const cursors = 8; // each reads 10,000 rows of ~6 KB: ~60 MB kept, 480 MB for all before the budget
    for (let i = 1; i <= cursors; i++) {
      await eve.query(
        `declare c${i} scroll cursor with hold for select x, repeat('y', 6000) as pad from range(10000) t(x)`,
      );
      await eve.query(`move forward 10000 in c${i}`);
    }
    // The first cursors kept theirs, within the budget: back to their first row.
    assert.equal((await eve.query('fetch absolute 1 from c1')).rows[0].x, '0');
    assert.equal((await eve.query('fetch absolute 1 from c2')).rows[0].x, '0');
    // The last let their oldest rows go: going back to them is 54000, as past a cursor's own cap.
    await assert.rejects(eve.query(`fetch absolute 1 from c${cursors}`), { code: '54000' });
    assert.equal((await eve.query(`fetch absolute 10000 from c${cursors}`)).rows[0].x, '9999');
    // Closed, their rows go: a new cursor keeps all of its own again.
    for (let i = 1; i <= cursors; i++) await eve.query(`close c${i}`);
    await eve.query("declare d scroll cursor with hold for select x, repeat('y', 6000) as pad from range(10000) t(x)");
    await eve.query('move forward 10000 in d');
    assert.equal((await eve.query('fetch absolute 1 from d')).rows[0].x, '0');
    await eve.query('close d');
  });
});
