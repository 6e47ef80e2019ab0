/**
 * Real Python clients against `fdl serve` over real sockets: psycopg2, psycopg 3, asyncpg,
 * SQLAlchemy Core (psycopg2 dialect) and psqlODBC through pyodbc, each a probe in test/clients/
 * run by the Debian interpreter with Debian's modules (.ci/run installs them). Every probe covers
 * connect, simple query, int/text/numeric/timestamp parameters, prepared reuse, 100,000 rows, a
 * cancelled long query (57014) and an error followed by recovery on the same connection, plus what
 * is particular to its client; it prints `ok <check>` per check and exits non-zero on the first
 * failure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, serveBasic, type RunningGateway } from './support/gateway.js';
import { describeProbe, passedChecks, runProbe } from './support/probe.js';

const PYTHON = '/usr/bin/python3';
const PROBES = join(ROOT, 'test', 'clients');
const COMMON = [
  'connect',
  'simple query',
  'parameters int text numeric timestamp',
  'prepared reuse',
  '100000 rows streamed',
  'cancel long query 57014',
  'error then recovery',
];

describe('Python clients', () => {
  let gw: RunningGateway;

  before(async () => {
    gw = await serveBasic();
  });
  after(async () => {
    await gw?.stop();
  });

  async function probe(file: string, extra: string[]): Promise<void> {
    const r = await runProbe(PYTHON, [join(PROBES, file)], {
      cwd: PROBES,
      env: {
        FDL_HOST: gw.host,
        FDL_PORT: String(gw.port),
        FDL_DB: 'basic',
        PYTHONDONTWRITEBYTECODE: '1',
        PGSSLMODE: 'prefer',
      },
      timeoutMs: 150_000,
    });
    const passed = passedChecks(r.stdout);
    assert.equal(r.code, 0, describeProbe(r));
    for (const c of [...COMMON, ...extra, 'done'])
      assert.ok(passed.includes(c), `check "${c}" did not pass\n${describeProbe(r)}`);
  }

  test('psycopg2: BEGIN first, status T/E/I, text interpolation, named cursors, cancel, 25P02 then ROLLBACK, 25006', async () => {
    await probe('psycopg2_probe.py', ['read-only refusal 25006', 'named cursor (DECLARE/FETCH)']);
  });

  test('psycopg 3: binary parameters (%b) and binary results, prepare=True and automatic preparation, stream', async () => {
    await probe('psycopg3_probe.py', ['binary parameters and binary results']);
  });

  test('asyncpg: prepared statements, fetchval/fetchrow, cursors in a transaction, introspected parameter types, pool reset', async () => {
    await probe('asyncpg_probe.py', ['parameter of an introspected type', 'cursor inside a transaction', 'pool reset']);
  });

  test('SQLAlchemy Core: select with joins and binds, Inspector schemas/tables/views/columns/pk/comment', async () => {
    await probe('sqlalchemy_probe.py', ['core select', 'inspector']);
  });

  test('psqlODBC through pyodbc (manual commit): savepoints per statement, tables(), columns()', async () => {
    await probe('odbc_probe.py', ['tables()', 'columns()']);
  });
});
