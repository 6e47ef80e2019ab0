/**
 * The text a session's named statements hold is bounded (issue 23): named Parses of
 * `select count(*) + N from sales.orders where order_id in (<28,000 integers>)` held ≈ 6 MB of
 * DuckDB's memory each, and 190 of them took RSS past memoryLimit while idle. Past the text budget
 * the next one is refused 53400 before it is planned, and the session goes on.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_PREPARED_TEXT, roomForStatement, userStatements } from '../src/session/named-limits.js';

const attackerText = (n: number) =>
  `select count(*) + ${n} from sales.orders where order_id in (${Array.from({ length: 28_000 }, (_, i) => 100_000 + i).join(', ')})`;

describe('named statements: a budget on the text they hold', () => {
  test("the attacker's pattern is refused 53400 long before 190 statements; a freed name makes room", () => {
    const held = new Map<string, { sql: string }>();
    let refusedAt = -1;
    for (let n = 0; n < 190; n++) {
      const sql = attackerText(n);
      try {
        roomForStatement(held, `s${n}`, {}, sql);
      } catch (e) {
        const err = e as { sqlstate?: string; message: string };
        assert.equal(err.sqlstate, '53400');
        assert.match(err.message, /prepared statements of this user's sessions would hold \d+ characters of text/);
        refusedAt = n;
        break;
      }
      held.set(`s${n}`, { sql });
    }
    const each = attackerText(0).length;
    assert.equal(refusedAt, Math.floor(DEFAULT_MAX_PREPARED_TEXT / each));
    assert.ok(refusedAt < 40, `refused at ${refusedAt}`);
    // The unnamed statement never counts; a replaced name counts once; a freed name makes room.
    assert.doesNotThrow(() => roomForStatement(held, '', {}, attackerText(1)));
    assert.doesNotThrow(() => roomForStatement(held, 's0', {}, attackerText(1)));
    held.delete('s0');
    assert.doesNotThrow(() => roomForStatement(held, 'sNew', {}, attackerText(1)));
    assert.throws(() => roomForStatement(held, 'sNew', { maxPreparedText: 1000 }, 'select 1'), /limit is 1000/);
  });

  test("the budget is the user's across sessions: another session of the same user is refused, another user's is not, and a session's end gives its share back", () => {
    const text = 'x'.repeat(1000);
    const a = new Map<string, { sql: string }>([
      ['s1', { sql: text }],
      ['s2', { sql: text }],
    ]);
    const b = new Map<string, { sql: string }>();
    const other = new Map<string, { sql: string }>([
      ['s1', { sql: text }],
      ['s2', { sql: text }],
    ]);
    const releaseA = userStatements.hold('ann', a);
    const releaseB = userStatements.hold('ann', b);
    const releaseOther = userStatements.hold('bob', other);
    try {
      // 2,000 characters held by ann's first session: 1,000 more fit in 3,000, 1,001 do not.
      assert.doesNotThrow(() => roomForStatement(b, 's1', { maxPreparedText: 3000 }, 'y'.repeat(1000)));
      assert.throws(
        () => roomForStatement(b, 's1', { maxPreparedText: 3000 }, 'y'.repeat(1001)),
        (e: { sqlstate?: string; message: string }) =>
          e.sqlstate === '53400' &&
          e.message ===
            "prepared statements of this user's sessions would hold 3001 characters of text: the limit is 3000",
      );
      assert.equal(b.size, 0); // the check keeps nothing
      // bob's statements are his own.
      assert.doesNotThrow(() => roomForStatement(other, 's3', { maxPreparedText: 3000 }, 'y'.repeat(1000)));
      releaseA();
      assert.doesNotThrow(() => roomForStatement(b, 's1', { maxPreparedText: 3000 }, 'y'.repeat(3000)));
    } finally {
      releaseA();
      releaseB();
      releaseOther();
    }
  });
});
