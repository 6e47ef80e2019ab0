/**
 * pgjdbc (Debian libpostgresql-jdbc-java, the DBeaver/Metabase/Tableau driver family) against
 * `fdl serve`: test/clients/JdbcProbe.java is compiled with javac into a temp dir at test time and
 * run with the Debian jar. It covers connect, simple query, int/text/numeric/timestamp parameters,
 * prepareThreshold reuse (named S_n statements bound without Describe, binary int params),
 * setFetchSize(100) cursors inside a transaction over 100,000 rows, cancel (57014), error and
 * recovery (42P01, 25P02, ROLLBACK), and DatabaseMetaData.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, ROOT, startGateway, type RunningGateway } from './support/gateway.js';
import { describeProbe, passedChecks, runProbe } from './support/probe.js';

const JAR = '/usr/share/java/postgresql.jar';

describe('pgjdbc', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const classes = mkdtempSync(join(tmpdir(), 'fdl-jdbc-'));

  before(async () => {
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
    rmSync(classes, { recursive: true, force: true });
  });

  test('JdbcProbe: prepareThreshold reuse, setFetchSize cursor, binary int params, cancel, recovery, DatabaseMetaData', async () => {
    assert.ok(existsSync(JAR), `${JAR} missing: install libpostgresql-jdbc-java`);
    const compiled = await runProbe('javac', ['-cp', JAR, '-d', classes, join(ROOT, 'test', 'clients', 'JdbcProbe.java')], { timeoutMs: 120_000 });
    assert.equal(compiled.code, 0, describeProbe(compiled));
    const r = await runProbe('java', ['-cp', `${classes}:${JAR}`, 'JdbcProbe', gw.host, String(gw.port), 'basic'], { timeoutMs: 150_000 });
    assert.equal(r.code, 0, describeProbe(r));
    const passed = passedChecks(r.stdout);
    for (const c of [
      'connect',
      'simple query',
      'parameters int text numeric timestamp',
      'prepareThreshold reuse with binary int params',
      '100000 rows streamed with setFetchSize(100) in a transaction',
      'cancel long query 57014',
      'error then recovery',
      'DatabaseMetaData getSchemas',
      'DatabaseMetaData getTables',
      'DatabaseMetaData getColumns with JDBC types',
      'DatabaseMetaData getPrimaryKeys',
      'DatabaseMetaData getTypeInfo',
      'ResultSetMetaData',
      'done',
    ]) {
      assert.ok(passed.includes(c), `check "${c}" did not pass\n${describeProbe(r)}`);
    }
  });
});
