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
const opt = (name: string, dflt: number) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
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

const gw = await startGateway(['--repo', `basic=${join(FIXTURES, 'repos', 'basic')}`, '--log-level', 'error', '--max-connections', '200']);
const alive = () => gw.proc.exitCode === null && gw.proc.signalCode === null;
let failed = false;
try {
  console.log(`fuzz: seed ${seed}, ${frames} frames, ${concurrency} connections in flight, gateway pid ${gw.proc.pid}`);
  const s = await fuzz({
    host: gw.host, port: gw.port, database: 'basic', seed, maxFrames: frames, maxMs: maxSeconds * 1000, concurrency, timeoutMs: 15_000, alive,
    onProgress: (p) => console.log(`  … ${p.frames} frames, ${p.cases} connections, ${(p.ms / 1000).toFixed(0)} s, RSS peak ${(vmHwmKb(gw.proc.pid!) / 1024).toFixed(0)} MB`),
  });
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'after-fuzz', database: 'basic' });
  let servedAfter = 'no';
  try {
    await c.connect();
    const r = await c.query('select count(*)::int as n from sales.orders');
    servedAfter = `yes (${r.rows[0].n} orders)`;
    await c.end();
  } catch (e) {
    servedAfter = `NO: ${(e as Error).message}`;
    failed = true;
  }
  const result = {
    seed, frames: s.frames, connections: s.cases, seconds: +(s.ms / 1000).toFixed(1),
    framesPerSecond: Math.round(s.frames / (s.ms / 1000)), connectionsPerSecond: Math.round(s.cases / (s.ms / 1000)),
    outcomes: s.outcomes, slowestCaseMs: Math.round(s.maxCaseMs), findings: s.findings.length,
    gatewayAlive: alive(), gatewayPeakRssMB: Math.round(vmHwmKb(gw.proc.pid!) / 1024), servedAfter,
  };
  console.log(JSON.stringify(result, null, 2));
  for (const f of s.findings.slice(0, 20)) {
    console.log(`FINDING case ${f.id}: ${f.outcome} ${f.detail ?? ''} [${f.kinds.join(',')}]`);
    console.log(`  bytes: ${caseOf(seed, f.id, 'basic').chunks.map((b) => b.toString('hex')).join(' ').slice(0, 600)}`);
  }
  if (s.findings.length || !alive()) failed = true;
} finally {
  if (!alive()) console.log(`gateway died; stderr tail:\n${gw.stderr().slice(-3000)}`);
  await gw.stop();
}
process.exitCode = failed ? 1 : 0;
