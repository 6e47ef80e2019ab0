/**
 * sqlsmith against the gateway, seeded: it reads the catalog emulation (pg_type, pg_proc,
 * pg_operator …), generates random statements and sends them. A short run in the suite (300
 * statements, about a minute on a loaded machine; sqlsmith's start-up alone reads the catalog with
 * ~200 statements); the 2,000-statement run is bench/sqlsmith.ts (`npm run bench -- --only sqlsmith`),
 * because at ~0.1 s per generated statement it would take minutes of the suite. sqlsmith finishes on
 * its own, the gateway neither crashes nor hangs, keeps answering, and its memory stays bounded.
 * Errors of single statements are expected (writes, unsupported syntax): sqlsmith counts them, and
 * since pg_proc lists only callable functions (pg-function-catalog.test.ts) fewer than half fail.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';
import { describeProbe, runProbe } from './support/probe.js';

let gw: RunningGateway;

before(
  async () => {
    gw = await serveBasic();
  },
  { timeout: 60_000 },
);

after(
  async () => {
    await gw?.stop();
  },
  { timeout: 30_000 },
);

/** Resident memory of the gateway process, in MiB. */
const rssMiB = (): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gw.proc.pid}/status`, 'utf8'))![1]) / 1024;

test(
  'sqlsmith (seed 42, 300 statements) ends on its own; the gateway survives, answers, and stays within memory',
  { timeout: 420_000 },
  async () => {
    const before = rssMiB();
    const r = await runProbe(
      'sqlsmith',
      [
        `--target=host=${gw.host} port=${gw.port} dbname=basic@v2 user=me`,
        '--seed=42',
        '--max-queries=300',
        '--verbose',
      ],
      { timeoutMs: 400_000 },
    );
    assert.equal(r.timedOut, false, 'sqlsmith finished (no hang)');
    assert.equal(r.code, 0, describeProbe(r));
    assert.match(r.stderr, /queries: 300\b/, 'all 300 statements were sent');
    // Calls are built from pg_proc/pg_operator, which list what works plus the type I/O functions clients'
    // type maps read (ruby-pg, Rails, Sequel join typinput to pg_proc): sqlsmith calls those too and they fail
    // (0.43 without them, 0.65 with them on one loaded run).
    const errorRate = Number(/error rate: ([\d.]+)/.exec(r.stderr)?.[1]);
    assert.ok(errorRate < 0.8, `error rate ${errorRate}`); // 0.73 on the first run with them
    assert.doesNotMatch(r.stderr, /server closed the connection|terminating connection|internal error/i);
    // The gateway is still there and answers.
    const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
    const one = await c.query('select 1');
    assert.equal(one.error, undefined);
    assert.equal(one.dataRows.length, 1);
    await c.close();
    const afterRun = rssMiB();
    console.log(
      `sqlsmith: ${/error rate: ([\d.]+)/.exec(r.stderr)?.[1] ?? '?'} error rate; gateway RSS ${before.toFixed(0)} → ${afterRun.toFixed(0)} MiB`,
    );
    assert.ok(afterRun < before + 1024, `RSS ${before.toFixed(0)} → ${afterRun.toFixed(0)} MiB`);
  },
);
