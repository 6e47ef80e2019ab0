/**
 * Deeply nested JSON against a real gateway (engine/nesting-guards.ts): each payload that overflowed
 * DuckDB's stack and killed the whole process (SIGSEGV, every session of every repository dropped;
 * found by bench/deep-nesting-sweep.ts) is refused 54001, by constant, per-row value, literal and
 * parameter alike; the process lives on, the session goes on and another session answers. Ordinary
 * calls answer as before, up to the ceiling.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, TRUST_ANN_READS_BASIC, type RunningGateway } from './support/gateway.js';
import { MAX_JSON_DEPTH } from '../src/engine/nesting-guards.js';

const deepArray = (n: string) => `(repeat('[', ${n}) || repeat(']', ${n}))`;
/** Twice `n` levels (repeat adds at most 256 KiB per call: engine/value-guards.ts). */
const deepObject = (n: string) => `(repeat('{"a":', ${n}) || repeat('{"a":', ${n}) || '1' || repeat('}', 2 * ${n}))`;
/** A structure must be constant when bound, and repeat's guard is not (it may raise): a 200 KB literal. */
const DEEP_STRUCTURE = `'${'['.repeat(100_000)}"INTEGER"${']'.repeat(100_000)}'`;
const LITERAL = `'${'['.repeat(100_000)}${']'.repeat(100_000)}'`;

/** Each but the last crashed the gateway before (SIGSEGV within about a second). */
const PAYLOADS: { sql: string; params?: string[]; code?: string }[] = [
  { sql: `select length(json_structure(${deepArray('100000')}))` },
  { sql: `select length(json_structure(${deepObject('50000')}))` },
  { sql: `select json_contains(j, j) from (select ${deepArray('100000')} as j)` },
  { sql: `select length(json_structure(${deepArray('100000 + i::int')})) from range(1) t(i)` },
  { sql: `select length(json_structure(${LITERAL}))` },
  { sql: 'select length(json_structure($1::varchar))', params: ['['.repeat(100_000) + ']'.repeat(100_000)] },
  { sql: 'select json_contains($1::json, $1::json)', params: ['['.repeat(100_000) + ']'.repeat(100_000)] },
  ...['json_transform', 'json_transform_strict', 'from_json', 'from_json_strict'].map((f) => ({
    sql: `select ${f}('1', ${DEEP_STRUCTURE}) is null`,
  })),
  // DuckDB's VARIANT (no PostgreSQL meaning) is refused by name from the parse (analysis/qualified-types.ts);
  // the second is not a crash (DuckDB cannot read JSON into VARIANT[]): the name quoted, inside a list type.
  { sql: `select length(${deepArray('100000')}::json::variant::varchar)`, code: '0A000' },
  { sql: `select try_cast(${deepArray('100000')}::json as "Variant"[]) is null`, code: '0A000' },
];

describe('deep nesting: functions that recursed past the stack', () => {
  let gw: RunningGateway;
  const login = async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
    await c.connect();
    return c;
  };

  before(async () => {
    gw = await serveBasic([], { config: TRUST_ANN_READS_BASIC });
  });
  after(async () => {
    await gw?.stop();
  });

  test('each payload is refused 54001; the gateway lives, the session and another session answer', async () => {
    const c = await login();
    const other = await login();
    for (const { sql, params, code = '54001' } of PAYLOADS) {
      const shown = sql.slice(0, 80);
      await assert.rejects(
        c.query(sql, params),
        (e: { code?: string; message?: string }) =>
          e.code === code && (code !== '54001' || /nested more than 1000 levels deep/.test(e.message ?? '')),
        shown,
      );
      assert.equal(gw.proc.exitCode, null, `${shown}: the gateway exited`);
      assert.equal(gw.proc.signalCode, null, `${shown}: the gateway died`);
      assert.equal((await other.query('select 1 as one')).rows[0].one, 1, shown);
    }
    assert.equal((await c.query('select 2 as two')).rows[0].two, 2);
    await Promise.all([c.end(), other.end()]);
  });

  test('ordinary and wide JSON answer as before; the ceiling is exact', async () => {
    const c = await login();
    const r = await c.query(
      `select json_structure('{"a":[1,"]]"]}')::varchar as s, json_contains('{"a":[1,2]}', '{"a":[1]}') as has,
        (from_json('{"a":1}', '{"a":"INTEGER"}')).a as f, json_transform('[[1]]', '[["INTEGER"]]')::varchar as t`,
    );
    // a list as text is PostgreSQL's array text (pg/pg-text.ts); a record as text is refused, so its field is read
    assert.deepEqual(r.rows[0], { s: '{"a":["JSON"]}', has: true, f: 1, t: '{{1}}' });
    // 15,000 objects in one 210 KB array: far more brackets than the ceiling, two levels deep.
    const wide = `'[' || repeat('{"a":[1,"]"]},', 15000) || '1]'`;
    assert.equal(
      (await c.query(`select json_structure(${wide})::varchar as s, json_contains(${wide}, '1') as has`)).rows[0].s,
      '["JSON"]',
    );
    const at = (n: number) => `select length(json_structure(${deepArray(String(n))}))::int as n`;
    assert.ok((await c.query(at(MAX_JSON_DEPTH))).rows[0].n > 2 * MAX_JSON_DEPTH);
    await assert.rejects(c.query(at(MAX_JSON_DEPTH + 1)), (e: { code?: string }) => e.code === '54001');
    // A malformed text keeps the built-in's own error, however long.
    await assert.rejects(
      c.query(`select json_structure('[1,2' || repeat(' ', 3000))`),
      (e: { code?: string; message?: string }) => e.code !== '54001' && /Malformed JSON/.test(e.message ?? ''),
    );
    await c.end();
  });
});
