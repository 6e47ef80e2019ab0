/**
 * What the wildcard matchers cost in one vector of 2,048 rows, with the session guards
 * (engine/pattern-guards.ts, cost-guards.ts) and without (the built-ins, as before them), in one
 * DuckDB instance, one thread, alternating:
 * - the worst admitted backtracking: for k = 2…5 pieces after a wildcard, the longest text of
 *   `a`s the guard admits under `*a*…*?b` (a pattern RE2 cannot take: `?`), timed through the guard;
 * - the attack shapes, one row each without the guards (2,048 of them would take minutes);
 * - everyday patterns over 2,048 texts of 200 bytes of words, with and without the guards.
 *
 *   npx tsc -p . && node dist/bench/pattern-cost.js [--rounds 3]
 */
import { loadavg } from 'node:os';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { costGuardStatements, GUARDED_ARITIES_SQL } from '../src/engine/cost-guards.js';

const args = process.argv.slice(2);
const ROUNDS = Number(args.includes('--rounds') ? args[args.indexOf('--rounds') + 1] : 3);
const log = (s: string) => process.stdout.write(s + '\n');

async function connection(guarded: boolean): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await db.connect();
  if (guarded) {
    const listed = (await c.runAndReadAll(GUARDED_ARITIES_SQL)).getRows();
    const arities = new Map(listed.map(([n, l]) => [String(n), (l as { items: unknown[] }).items.map(Number)]));
    for (const s of costGuardStatements(arities)) await c.run(s);
  }
  // Words of 3–9 letters, 200 bytes a text, one row in 50 holding 'needle'.
  await c.run(`create table texts as select left(string_agg(w, ' '), 200) || case when r % 50 = 0 then ' needle' else '' end as t
    from (select r, substr(md5((r * 40 + i)::varchar), 1, 3 + (r * 40 + i) % 7) as w from range(2048) a(r), range(40) b(i))
    group by r`);
  return c;
}

/** Milliseconds of the best of `rounds` runs, or the error's first words. */
async function time(c: DuckDBConnection, sql: string, rounds = ROUNDS): Promise<string> {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    try {
      await c.runAndReadAll(sql);
    } catch (e) {
      return `refused (${(e as Error).message.slice(21, 60)}…)`;
    }
    best = Math.min(best, performance.now() - t0);
  }
  return `${best.toFixed(1)} ms`;
}

const pattern = (k: number) => `'*' || repeat('a*', ${k - 1}) || '?b'`;
const vector = (n: number, k: number) =>
  `select count(*) from range(2048) t(r) where repeat('a', ${n} + r % 2) glob ${pattern(k)}`;

async function admitted(c: DuckDBConnection, n: number, k: number): Promise<boolean> {
  return c.runAndReadAll(`select repeat('a', ${n} + r % 2) glob ${pattern(k)} from range(2) t(r)`).then(
    () => true,
    () => false,
  );
}

const guarded = await connection(true);
const plain = await connection(false);
log(
  `load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, best of ${ROUNDS}, one thread`,
);
log('worst admitted backtracking, one vector of 2,048 rows:');
for (const k of [2, 3, 4, 5]) {
  let n = 1;
  while (await admitted(guarded, n * 2, k)) n *= 2;
  for (let step = n / 2; step >= 1; step /= 2) if (await admitted(guarded, n + step, k)) n += step;
  log(
    `  k=${k}: text of ${n} bytes: guarded ${await time(guarded, vector(n, k))}, built-in ${await time(plain, vector(n, k))}`,
  );
}
log('attack shapes, one row (built-in) and 2,048 rows (guarded):');
for (const [name, sql] of [
  [
    'GLOB 4 stars over 400 bytes',
    (rows: number) =>
      `select count(*) from range(${rows}) t(r) where repeat('a', 400 + r % 2) glob '*' || repeat('a*', 3) || 'b'`,
  ],
  [
    'LIKE from rows, 4 % over 200',
    (rows: number) =>
      `select count(*) from range(${rows}) t(r) where repeat('a', 200 + r % 2) like '%' || repeat('a%', 3) || 'b' || (r % 2)::varchar`,
  ],
  [
    'ILIKE 4 % over 300',
    (rows: number) =>
      `select count(*) from range(${rows}) t(r) where repeat('a', 300 + r % 2) ilike '%' || repeat('a%', 3) || 'b'`,
  ],
] as const) {
  log(
    `  ${name}: built-in 1 row ${await time(plain, sql(1), 1)}, guarded 2,048 rows ${await time(guarded, sql(2048))}`,
  );
}
log('everyday patterns over 2,048 texts of 200 bytes, ten times (guarded | built-in):');
for (const p of [
  `t like '%needle%'`,
  `t ilike '%NEEDLE%'`,
  `t like 'a%'`,
  `t like '%ab%cd%'`,
  `t ilike '%ab%cd%'`,
  `t glob '*ab*cd*'`,
  `like_escape(t, '%ab%cd%', '\\')`,
  `t like '%' || (length(t) % 2)::varchar || '%needle%'`,
]) {
  // Ten passes over the table, so the time is the matcher's and not the statement's.
  const ten = `select count(*) from texts, range(10) where ${p}`;
  log(`  ${p}: ${await time(guarded, ten)} | ${await time(plain, ten)}`);
}
