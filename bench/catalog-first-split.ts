/**
 * A fresh gateway's first rounds of psql 15's \\d texts (test/fixtures-clients/psql15-backslash.json), result cache
 * off, one statement at a time on one connection, each statement's stage split read from /metrics around it: where a
 * first client's catalog time goes (issue 24). Run with FDL_STAGE_CLOCK=cpu for CPU milliseconds (src/stages.ts).
 *
 *   FDL_STAGE_CLOCK=cpu node dist/bench/catalog-first-split.js [<a build's dist/src/cli/main.js> or ""] [rounds, default 1]
 *     [--databases basic@v2,basic]   (a round on each in turn, a connection each: a version's first round after another's)
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveForBench } from './bench-gateway.js';
import { copyFixtures } from '../test/support/gateway.js';
import { RawPg } from '../test/support/raw-pg.js';
import { STAGES } from '../src/stages.js';
const cli = process.argv[2] || new URL('../src/cli/main.js', import.meta.url).pathname;
const repos = copyFixtures('repos/basic');
const cacheDir = mkdtempSync(join(tmpdir(), 'fdl-first-split-'));
const s = await serveForBench({
  cli,
  repo: repos.path('repos/basic'),
  cacheDir,
  args: ['--result-cache-bytes', '0'],
});
const scrape = async () => {
  const text = await fetch(`http://${s.http}/metrics`).then((r) => r.text());
  return new Map(
    STAGES.map((st) => [
      st,
      Number(new RegExp(`^fdl_statement_stage_seconds_sum\\{stage="${st}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0),
    ]),
  );
};
const psql = JSON.parse(
  readFileSync(new URL('../../test/fixtures-clients/psql15-backslash.json', import.meta.url), 'utf8'),
) as { statements: { command: string; sql: string }[] };
const dbArg = process.argv.indexOf('--databases');
const databases = dbArg > 0 ? process.argv[dbArg + 1]!.split(',') : ['basic'];
let c = await RawPg.connect({ port: s.port, user: 'me', database: databases[0]! });
const rounds = dbArg > 0 ? databases.length : Number(process.argv[3] ?? 1);
const tot: Record<string, number> = {};
for (let round = 0; round < rounds; round++) {
  const db = databases[Math.min(round, databases.length - 1)]!;
  if (round > 0 && dbArg > 0) {
    await c.close();
    c = await RawPg.connect({ port: s.port, user: 'me', database: db });
  }
  const roundTot: Record<string, number> = {};
  const rows: string[] = [];
  for (const st of psql.statements) {
    const sql = st.sql.replace(/\{\{users_oid\}\}/g, '0').replace(/\{\{big_orders_oid\}\}/g, '0');
    const a = await scrape();
    const t0 = performance.now();
    const r = await c.simple(sql);
    const wall = performance.now() - t0;
    const b = await scrape();
    const sp = STAGES.map((x) => [x, (b.get(x)! - a.get(x)!) * 1000] as const).filter(([, v]) => v >= 0.5);
    for (const [x, v] of sp) {
      tot[x] = (tot[x] ?? 0) + v;
      roundTot[x] = (roundTot[x] ?? 0) + v;
    }
    rows.push(
      `${wall.toFixed(1).padStart(7)} ${st.command.padEnd(14)} ${r.error ? 'ERR ' : ''}${sp.map(([x, v]) => `${x} ${v.toFixed(1)}`).join(', ')}`,
    );
  }
  console.log(
    `round ${round} (${db}) stage totals (ms CPU):`,
    JSON.stringify(Object.fromEntries(Object.entries(roundTot).map(([k, v]) => [k, Math.round(v)]))),
  );
  if (round === rounds - 1 || round === 0)
    console.log(
      `round ${round}\n` +
        rows
          .sort((x, y) => parseFloat(y) - parseFloat(x))
          .slice(0, 25)
          .join('\n'),
    );
}
console.log(
  'stage totals (ms CPU):',
  JSON.stringify(Object.fromEntries(Object.entries(tot).map(([k, v]) => [k, Math.round(v)]))),
);
await c.close();
s.proc.kill();
repos.cleanup();
rmSync(cacheDir, { recursive: true, force: true });
process.exit(0);
