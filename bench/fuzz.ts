/**
 * Long wire-protocol fuzz run (issue 7): the seeded fuzzer of test/support/fuzz.ts for ≥ 100,000
 * frames against a started gateway serving test/fixtures/repos/basic. Reports frames/s, connections,
 * outcomes, the slowest case, the gateway's peak RSS, and that a normal client is served afterwards.
 *
 *   npx tsc -p . && node dist/bench/fuzz.js [--frames 100000] [--seed N] [--concurrency 16] [--max-seconds 600]
 *
 * Exit code 1 when a finding (crash, hang, wrong answer, garbage from the server) was seen.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { FIXTURES, startGateway } from '../test/support/gateway.js';
import { caseOf, fuzz } from '../test/support/fuzz.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const frames = opt('frames', 100_000);
const seed = opt('seed', 20_260_101);
const concurrency = opt('concurrency', 16);
const maxSeconds = opt('max-seconds', 600);

export function vmHwmKb(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

// Until the gateway survives a whole run, a crash ends a "round": the gateway is restarted and the
// run goes on with the next seed (seed + round), so one run still covers the frame budget and
// reports how often the gateway died. Each finding names its seed and case id (caseOf reproduces it).
let failed = false;
const t0 = performance.now();
const total = {
  frames: 0,
  connections: 0,
  outcomes: {} as Record<string, number>,
  slowestCaseMs: 0,
  findings: 0,
  crashes: 0,
  rounds: 0,
  peakRssMB: 0,
};
const findings: string[] = [];
let servedAfter = 'not checked';
console.log(`fuzz: seed ${seed}, ${frames} frames, ${concurrency} connections in flight`);
for (let round = 0; total.frames < frames && performance.now() - t0 < maxSeconds * 1000; round++) {
  const roundSeed = seed + round;
  const gw = await startGateway([
    '--repo',
    `basic=${join(FIXTURES, 'repos', 'basic')}`,
    '--log-level',
    'error',
    '--max-connections',
    '200',
  ]);
  const alive = () => gw.proc.exitCode === null && gw.proc.signalCode === null;
  total.rounds++;
  try {
    const s = await fuzz({
      host: gw.host,
      port: gw.port,
      database: 'basic',
      seed: roundSeed,
      maxFrames: frames - total.frames,
      maxMs: maxSeconds * 1000 - (performance.now() - t0),
      concurrency,
      timeoutMs: 15_000,
      alive,
      onProgress: (p) =>
        console.log(
          `  … round ${round}: ${total.frames + p.frames} frames, ${total.connections + p.cases} connections, ${((performance.now() - t0) / 1000).toFixed(0)} s, gateway RSS peak ${(vmHwmKb(gw.proc.pid!) / 1024).toFixed(0)} MB`,
        ),
    });
    total.peakRssMB = Math.max(total.peakRssMB, Math.round(vmHwmKb(gw.proc.pid!) / 1024));
    total.frames += s.frames;
    total.connections += s.cases;
    total.slowestCaseMs = Math.max(total.slowestCaseMs, Math.round(s.maxCaseMs));
    for (const [k, v] of Object.entries(s.outcomes)) total.outcomes[k] = (total.outcomes[k] ?? 0) + v;
    total.findings += s.findings.length;
    for (const f of s.findings.slice(0, 5)) {
      findings.push(
        `seed ${roundSeed} case ${f.id}: ${f.outcome} ${f.detail ?? ''} [${f.kinds.join(',')}]\n  bytes: ${caseOf(
          roundSeed,
          f.id,
          'basic',
        )
          .chunks.map((b) => b.toString('hex'))
          .join(' ')
          .slice(0, 400)}`,
      );
    }
    if (!alive()) {
      total.crashes++;
      const tail = gw.stderr().trim().split('\n').slice(-2).join(' | ');
      console.log(
        `  round ${round} (seed ${roundSeed}): gateway died (${gw.proc.signalCode ?? gw.proc.exitCode}) after ${s.frames} frames: ${tail.slice(0, 300)}`,
      );
      continue;
    }
    if (total.frames >= frames || performance.now() - t0 >= maxSeconds * 1000) {
      const c = new pg.Client({
        host: gw.host,
        port: gw.port,
        user: 'after-fuzz',
        database: 'basic',
        query_timeout: 10_000,
        connectionTimeoutMillis: 10_000,
      });
      try {
        await c.connect();
        const r = await c.query('select count(*)::int as n from sales.orders');
        servedAfter = `yes (${r.rows[0].n} orders)`;
      } catch (e) {
        servedAfter = `NO: ${(e as Error).message}`;
        failed = true;
      } finally {
        await c.end().catch(() => undefined);
      }
    }
  } finally {
    const stopped = await Promise.race([gw.stop(), new Promise((r) => setTimeout(() => r('timeout'), 10_000))]);
    if (stopped === 'timeout') {
      console.log('  gateway did not exit within 10 s of SIGTERM: SIGKILL');
      gw.proc.kill('SIGKILL');
    }
  }
}
const secs = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify(
    {
      ...total,
      seconds: +secs.toFixed(1),
      framesPerSecond: Math.round(total.frames / secs),
      connectionsPerSecond: Math.round(total.connections / secs),
      servedAfter,
    },
    null,
    2,
  ),
);
for (const f of findings.slice(0, 20)) console.log(`FINDING ${f}`);
if (total.findings || total.crashes) failed = true;
process.exitCode = failed ? 1 : 0;
