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
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { runJavaProbe } from './support/jdbc.js';
import { describeProbe, passedChecks } from './support/probe.js';

describe('pgjdbc', () => {
  let gw: RunningGateway;

  before(async () => {
    gw = await serveBasic();
  });
  after(async () => {
    await gw?.stop();
  });

  test('JdbcProbe: prepareThreshold reuse, setFetchSize cursor, binary int params, cancel, recovery, DatabaseMetaData', async () => {
    const r = await runJavaProbe('JdbcProbe', [gw.host, String(gw.port), 'basic'], 150_000);
    assert.equal(r.code, 0, describeProbe(r));
    const passed = passedChecks(r.stdout);
    for (const c of [
      'connect',
      'simple query',
      'parameters int text numeric timestamp',
      'prepareThreshold reuse with binary int params',
      '100000 rows streamed with setFetchSize(100) in a transaction',
      'N+1 loop: another query while a setFetchSize ResultSet is open, two open at once',
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
