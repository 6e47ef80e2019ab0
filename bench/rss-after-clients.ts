/**
 * Does an idle gateway give memory back (issue 23)? A real `fdl serve` over repos/basic: an ordinary
 * user's 4 sessions prepare thousands of distinct named statements (as much text as the user's budget
 * allows), run a few large results, then every client leaves; the gateway's RSS (/proc/<pid>/status)
 * is printed at boot, while they hold it, and each second after they left.
 *
 *   npx tsc -p . && node dist/bench/rss-after-clients.js [--sessions 4] [--statements 900] [--wait 20]
 *     [--in 140] [--cli <dist/src/cli/main.js of another build>] [--env NAME=VALUE …]
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, startGateway } from '../test/support/gateway.js';
import { RawPg } from '../test/support/raw-pg.js';
import { serialize } from 'pg-protocol';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const SESSIONS = Number(flag('sessions') ?? 4);
const STATEMENTS = Number(flag('statements') ?? 900);
const WAIT_S = Number(flag('wait') ?? 20);
/** Integers in each statement's IN list (140: ≈ 1,000 characters; 28,000: the attacker's ≈ 170 KB). */
const IN_LIST = Number(flag('in') ?? 140);
const env: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === '--env') {
    const [k, ...v] = args[i + 1]!.split('=');
    env[k!] = v.join('=');
  }
});

const MiB = 1024 * 1024;
const rss = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (b: number) => `${(b / MiB).toFixed(0)} MiB`;

/** A distinct statement of ≈ 1,000 characters: an IN list DuckDB keeps as many constant expressions. */
const statement = (s: number, i: number) =>
  `select count(*) + ${s * 100_000 + i} from sales.orders where order_id in (${Array.from({ length: IN_LIST }, (_, k) => 1000 + i + k).join(',')})`;

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const config = join(repos.dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      repos: { basic: repos.path('repos/basic') },
      auth: 'trust',
      users: { ann: { grants: { basic: ['*'] } } },
      memoryLimit: '1GB',
    }),
  );
  const gw = await startGateway(['--config', config, '--cache-dir', join(repos.dir, 'cache')], {
    env,
    cli: flag('cli'),
  });
  const pid = gw.proc.pid!;
  const log = flag('gateway-log'); // the gateway's stdout (e.g. with --env NODE_OPTIONS=--trace-gc)
  if (log) gw.proc.stdout!.on('data', (d: Buffer) => appendFileSync(log, d));
  try {
    const warm = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    await warm.simple('select count(*) from sales.orders');
    await warm.close();
    await sleep(2000);
    const boot = rss(pid);
    console.log(
      `load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; boot RSS ${mb(boot)}`,
    );
    const t0 = Date.now();
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, () => RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' })),
    );
    let refused = 0;
    // One session after another: a long text's prepare takes a heavy slot (engine.ts), and a queue of
    // them would outlast the test client's 20 s wait for a message.
    const batchOf = IN_LIST > 1000 ? 1 : 50;
    for (const [s, c] of sessions.entries())
      await (async () => {
        for (let i = 0; i < STATEMENTS; i += batchOf) {
          const batch: Buffer[] = [];
          for (let j = i; j < Math.min(STATEMENTS, i + batchOf); j++)
            batch.push(serialize.parse({ name: `s${j}`, text: statement(s, j) }), serialize.sync());
          c.send(Buffer.concat(batch));
          for (let j = i; j < Math.min(STATEMENTS, i + batchOf); j++) if ((await c.untilReady()).error) refused++;
        }
        // Large results, read: 20 × 2 MB rows.
        await c.simple(`select repeat('y', 2000000) || range as v from range(20)`);
      })();
    const held = rss(pid);
    console.log(
      `${SESSIONS} sessions × ${STATEMENTS} named statements (${refused} refused) in ${((Date.now() - t0) / 1000).toFixed(1)} s: RSS ${mb(held)}`,
    );
    await Promise.all(sessions.map((c) => c.close()));
    const after: string[] = [];
    for (let s = 1; s <= WAIT_S; s++) {
      await sleep(1000);
      after.push(mb(rss(pid)));
    }
    console.log(`after the clients left, each second: ${after.join(', ')}`);
    console.log(
      `RESULT boot=${(boot / MiB).toFixed(0)} held=${(held / MiB).toFixed(0)} after=${(rss(pid) / MiB).toFixed(0)}`,
    );
    if (args.includes('--hold')) {
      console.log(`pid ${pid}: holding for gdb (Ctrl-C ends)`);
      await sleep(600_000);
    }
  } finally {
    await gw.stop();
    repos.cleanup();
  }
}

void main();
