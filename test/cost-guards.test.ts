/**
 * Functions whose cost grows faster than their input (engine/cost-guards.ts), with the size taken
 * from a row where the constant-size check cannot see it: the statement ends 54000 well within
 * statement_timeout + 2 s, the gateway's CPU goes back to idle (DuckDB checks interrupts only
 * between vectors: before, `levenshtein` of two 200,000-character values ran minutes past the
 * timeout and after the client left), the session and another session go on, and ordinary calls
 * still answer as before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';

const TIMEOUT_MS = 3000;

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cost guards: quadratic functions over row-sized inputs', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const login = async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
    await c.connect();
    await c.query(`set statement_timeout = ${TIMEOUT_MS}`);
    return c;
  };

  before(async () => {
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify({ auth: 'trust', users: { ann: { grants: { basic: ['*'] } } } }));
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--config', join(repos.dir, 'config.json'), '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('row-sized edit distances and patterns end 54000 within the timeout, and the process goes idle', async () => {
    const c = await login();
    const other = await login();
    const payloads = [
      "select levenshtein(repeat('a', n), repeat('b', n)) from (values (200000)) t(n)",
      "select damerau_levenshtein(repeat('a', n), repeat('b', n)) from (values (100000)) t(n)",
      "select editdist3(repeat('a', n), repeat('b', n)) from (values (100000)) t(n)",
      "select jaro_winkler_similarity(repeat('ab', n), repeat('ba', n)) from (values (2000000)) t(n)",
      "select repeat('a', n) ilike '%' || repeat('a', n / 2) || 'b%' from (values (200000)) t(n)",
      "select repeat('a', n) glob '*' || repeat('a', n / 2) || 'b*' from (values (200000)) t(n)",
      "select repeat('a', n) not like '%' || repeat('a_', n / 4) || 'b%' escape '!' from (values (200000)) t(n)",
    ];
    for (const sql of payloads) {
      const t0 = Date.now();
      await assert.rejects(c.query(sql), (e: { code?: string }) => e.code === '54000', sql);
      const took = Date.now() - t0;
      assert.ok(took < TIMEOUT_MS + 2000, `${sql}: answered after ${took} ms`);
      // Nothing left running: the process uses under half a core over the next 2 s.
      const cpu0 = cpuSeconds(gw.proc.pid!);
      await sleep(2000);
      const busy = cpuSeconds(gw.proc.pid!) - cpu0;
      assert.ok(busy < 1, `${sql}: the gateway used ${busy.toFixed(2)} s of CPU in the 2 s after the answer`);
    }
    // The sessions go on; ordinary calls answer as before (PostgreSQL's fuzzystrmatch gives 3 for kitten/sitting).
    const r = await c.query(`select levenshtein('kitten', 'sitting')::int as l, damerau_levenshtein('ab', 'ba')::int as d,
      round(jaro_winkler_similarity('martha', 'marhta'), 4) as j, 'abc' like 'a%' as l1, 'ABC' ilike '%b%' as l2,
      'abc' glob 'a*c' as g, 'a%c' like 'a!%c' escape '!' as e, levenshtein(repeat('a', 255), '')::int as edge`);
    assert.deepEqual(r.rows[0], { l: 3, d: 1, j: 0.9611, l1: true, l2: true, g: true, e: true, edge: 255 });
    assert.equal((await other.query('select count(*)::int as n from range(1000)')).rows[0].n, 1000);
    await Promise.all([c.end(), other.end()]);
  });

  test('the guard errs only over the ceiling: 255 bytes, and long patterns over long texts', async () => {
    const c = await login();
    // DuckDB's edit distances work by byte: 'é' is two.
    await assert.rejects(c.query("select levenshtein(repeat('é', 128), 'x')"), (e: { code?: string; message?: string }) => e.code === '54000' && /maximum length of 255 bytes/.test(e.message ?? ''));
    assert.equal((await c.query("select levenshtein(repeat('é', 127), 'x')::int as d")).rows[0].d, 254);
    // A 65-byte pattern over a 16 KB text is 1 MiB of pairs: served; over 17 KB: refused.
    const pat = `'%' || repeat('x', 63) || '%'`;
    assert.equal((await c.query(`select repeat('a', 16000) ilike ${pat} as m`)).rows[0].m, false);
    await assert.rejects(c.query(`select repeat('a', n) ilike ${pat} from (values (17000)) t(n)`), (e: { code?: string }) => e.code === '54000');
    // A short constant pattern is never checked, whatever the text's length (it folds away).
    assert.equal((await c.query(`select repeat('a', 10000000) like '%b%' as m`)).rows[0].m, false);
    await c.end();
  });
});
