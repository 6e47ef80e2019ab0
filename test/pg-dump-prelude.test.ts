/**
 * What pg_dump 15 asks before it reads any table, answered as PostgreSQL 15 answers it: the settings
 * it sets first (synchronize_seqscans, row_security, quote_all_identifiers), acldefault() for every
 * object kind (an owner's default privileges; no object here has an ACL of its own) and array_remove().
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { describeProbe, runProbe } from './support/probe.js';

const STATEMENTS = [
  'SET synchronize_seqscans TO off',
  'SET row_security = off',
  'SET quote_all_identifiers = true',
  "SELECT string_agg(k || ':' || array_to_string(acldefault(k::\"char\", 10), ','), ' ' ORDER BY k) FROM unnest(ARRAY['r','s','n','f','l','T','d','L','S','F','t','c']) u(k)",
  "SELECT array_to_string(array_remove(array_remove(ARRAY['a', 'check_option=local', 'b'], 'check_option=local'), 'check_option=cascaded'), ',')",
  "SELECT array_to_string(array_remove(ARRAY[1, 2, 1, 3], 1), ','), array_remove(NULL::int[], 1) IS NULL",
  'SHOW row_security',
];

async function run(conninfo: string): Promise<string> {
  const r = await runProbe(
    'psql',
    [conninfo, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...STATEMENTS.flatMap((s) => ['-c', s])],
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, describeProbe(r));
  return r.stdout;
}

describe('pg_dump prelude', () => {
  let gw: RunningGateway;
  let pg: PgCluster;
  before(async () => {
    [gw, pg] = await Promise.all([serveBasic(), startPgCluster()]);
  });
  after(() => Promise.all([gw?.stop(), pg?.stop()]));

  test('SETs, acldefault() and array_remove() answer as PostgreSQL 15', async () => {
    const [ours, theirs] = await Promise.all([
      run(`host=${gw.host} port=${gw.port} dbname=basic user=postgres`),
      run(`host=${pg.host} port=${pg.port} dbname=postgres user=postgres`),
    ]);
    assert.match(theirs, /n:postgres=UC\/postgres/);
    assert.equal(ours, theirs);
  });
});
