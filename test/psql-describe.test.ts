/**
 * psql 15's reading backslash commands (the list of `\?`), each run through the real psql against the
 * gateway and against PostgreSQL 15 holding the same tables (the gateway's own `pg_dump -Fc`, restored;
 * the same schema names, the same owner `me`, the same search_path), outputs compared in psql's
 * unaligned format. Only what must differ is normalised, each rule listed with its reason; commands
 * the gateway cannot answer as PostgreSQL does must fail with a clear message, asserted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { describeProbe, runProbe } from './support/probe.js';

/** The gateway's default search_path, given to both so visibility is the same. */
const SEARCH_PATH = '"$user", public, main, sales';
const ENV = { PGTZ: 'UTC', TZ: 'UTC', PGOPTIONS: `-c search_path=${SEARCH_PATH.replace(/ /g, '\\ ')}` };

/** A rewrite of PostgreSQL's output (never the gateway's) before comparing, and why it is allowed. */
interface Allowed { why: string; pg: (out: string) => string; gw?: (out: string) => string }

/** Built-in objects belong to the bootstrap superuser `postgres`; on the gateway every object belongs to the session's user. */
const bootstrapOwner: Allowed = { why: 'built-in objects are owned by the connected user on the gateway', pg: (o) => o.replace(/\|postgres(?=\||$)/gm, '|me') };
/** The twin cluster is initialised with locale C (test/support/pg-cluster.ts); the gateway reports C.UTF-8, DuckDB's byte order. */
const collation: Allowed = { why: 'the twin cluster runs with locale C, the gateway reports C.UTF-8', pg: (o) => o.replace(/^(basic\|me\|UTF8)\|C\|C\|/m, '$1|C.UTF-8|C.UTF-8|') };
/** PostgreSQL's built-in text search objects: the gateway serves no text search (to_tsvector is 42883), so it lists none. */
const noTextSearch: Allowed = { why: 'the gateway has no text search: it lists no dictionaries, parsers or templates', pg: (o) => o.replace(/^(List of text search [a-z]+\n[^\n]+\n)[\s\S]*\(\d+ rows?\)$/, '$1(0 rows)') };
/** A column's values dropped on both sides (found by its name in the unaligned header). */
function dropColumn(name: string, why: string): Allowed {
  const drop = (o: string) => {
    const lines = o.split('\n');
    const header = lines.findIndex((l) => l.split('|').includes(name));
    if (header < 0) return o;
    const at = lines[header]!.split('|').indexOf(name);
    const width = lines[header]!.split('|').length;
    return lines.map((l, i) => (i >= header && l.split('|').length === width ? l.split('|').filter((_, j) => j !== at).join('|') : l)).join('\n');
  };
  return { why, pg: drop, gw: drop };
}

/** Each command: the same output as PostgreSQL 15 after the listed rewrites, or a clear failure. */
const COMMANDS: Array<{ cmd: string; allowed?: Allowed[]; fails?: RegExp; pgUser?: string; todo?: string }> = [
  { cmd: '\\d' },
  { cmd: '\\d sales.orders' },
  { cmd: '\\d+ sales.orders' },
  { cmd: '\\d+', allowed: [dropColumn('Size', 'the gateway reports the Parquet bytes a table reads, PostgreSQL its heap pages')] },
  { cmd: '\\dt' },
  { cmd: '\\dt+', allowed: [dropColumn('Size', 'the gateway reports the Parquet bytes a table reads, PostgreSQL its heap pages')] },
  { cmd: '\\dt sales.*' },
  { cmd: '\\dtS pg_class', allowed: [bootstrapOwner] },
  { cmd: '\\dS pg_namespace', allowed: [{ why: 'the emulated catalog has no indexes', pg: (o) => o.replace(/\nIndexes:\n(?: {4}.*\n?)*/g, '\n').trimEnd() }] },
  { cmd: '\\dS pg_class', allowed: [{ why: 'the emulated catalog has no indexes', pg: (o) => o.replace(/\nIndexes:\n(?: {4}.*\n?)*/g, '\n').trimEnd() }] },
  { cmd: '\\da' },
  { cmd: '\\dA' },
  { cmd: '\\dA+', todo: 'access methods\' handlers show as OIDs until pg_proc lists PostgreSQL\'s functions (issue 24, the function catalog)' },
  { cmd: '\\db', allowed: [bootstrapOwner] },
  { cmd: '\\dc' },
  { cmd: '\\dd' },
  { cmd: '\\dD' },
  { cmd: '\\dD+' },
  { cmd: '\\ddp' },
  { cmd: '\\dE' },
  { cmd: '\\des' },
  { cmd: '\\des+' },
  { cmd: '\\det' },
  { cmd: '\\deu' },
  { cmd: '\\deu+' },
  { cmd: '\\dew' },
  { cmd: '\\dew+' },
  { cmd: '\\du me' },
  { cmd: '\\dg me' },
  { cmd: '\\di' },
  { cmd: '\\di+' },
  { cmd: '\\dl' },
  { cmd: '\\dm' },
  { cmd: '\\dn' },
  { cmd: '\\dn+' },
  { cmd: '\\do' },
  { cmd: '\\dO' },
  { cmd: '\\dO+' },
  { cmd: '\\dp' },
  { cmd: '\\dp sales.*' },
  { cmd: '\\dP' },
  { cmd: '\\dP+' },
  { cmd: '\\drds' },
  { cmd: '\\dRp' },
  { cmd: '\\dRp+' },
  { cmd: '\\dRs' },
  // PostgreSQL shows subscriptions' connection strings to superusers only.
  { cmd: '\\dRs+', pgUser: 'postgres' },
  { cmd: '\\ds' },
  { cmd: '\\ds+' },
  { cmd: '\\dT' },
  { cmd: '\\dv' },
  { cmd: '\\dv+' },
  { cmd: '\\dX' },
  { cmd: '\\dX+' },
  { cmd: '\\dy' },
  { cmd: '\\dy+' },
  { cmd: '\\z' },
  { cmd: '\\z sales.orders' },
  { cmd: '\\dconfig search_path' },
  { cmd: '\\dconfig+ search_path' },
  { cmd: '\\dconfig datestyle' },
  { cmd: '\\sv sales.orders' },
  { cmd: '\\dL', allowed: [bootstrapOwner] },
  { cmd: '\\dL+', todo: 'a language\'s handler functions are listed once pg_proc lists PostgreSQL\'s functions (issue 24, the function catalog)' },
  { cmd: '\\dx' },
  { cmd: '\\dx+', todo: 'plpgsql\'s objects are listed once pg_proc and pg_depend list them (issue 24, the function catalog)' },
  { cmd: '\\dT+ int4', allowed: [bootstrapOwner] },
  { cmd: '\\dT+' },
  { cmd: '\\l basic', allowed: [collation] },
  { cmd: '\\l+ basic', allowed: [collation, dropColumn('Size', 'the gateway serves Parquet files; PostgreSQL counts its data directory')] },
  { cmd: '\\dFd', allowed: [noTextSearch] },
  { cmd: '\\dFp', allowed: [noTextSearch] },
  { cmd: '\\dFt', allowed: [noTextSearch] },
  { cmd: '\\dFd+', allowed: [noTextSearch] },
  // Every function is a DuckDB built-in with no SQL source: \sf fails in words.
  { cmd: '\\sf abs', fails: /^ERROR: {2}(function "abs" does not exist|more than one function named "abs"|function definitions are not supported by fdl-gateway)/ },
  { cmd: '\\sf pg_catalog.lower(text)', fails: /^ERROR: {2}(function "pg_catalog\.lower\(text\)" does not exist|function definitions are not supported by fdl-gateway)/ },
];

describe('psql 15 describe commands: the gateway answers as PostgreSQL 15', { concurrency: 4 }, () => {
  let gw: RunningGateway;
  let pg: PgCluster;
  const repos = copyFixtures('repos/basic');
  const work = mkdtempSync(join(tmpdir(), 'fdl-psql-describe-'));
  const targets = () => ({
    gateway: `host=${gw.host} port=${gw.port} dbname=basic user=me`,
    postgres: `host=${pg.host} port=${pg.port} dbname=basic user=me`,
  });

  before(async () => {
    [gw, pg] = await Promise.all([
      startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]),
      startPgCluster({ settings: { TimeZone: 'UTC' } }),
    ]);
    // The same tables, schemas, comments and owner: the gateway's own dump (test/pg-dump.test.ts proves it restores).
    pg.psql('CREATE ROLE me LOGIN; CREATE DATABASE basic OWNER me;');
    pg.psql('DROP SCHEMA public;', ['-d', 'basic']);
    const file = join(work, 'basic.dump');
    for (const [cmd, args] of [['pg_dump', ['-Fc', '-f', file, targets().gateway]], ['pg_restore', ['--exit-on-error', '-d', targets().postgres, file]]] as const) {
      const r = await runProbe(cmd, [...args], { env: ENV, timeoutMs: 120_000 });
      assert.equal(r.code, 0, `${cmd}: ${describeProbe(r)}`);
    }
  }, { timeout: 180_000 });
  after(async () => {
    await Promise.all([gw?.stop(), pg?.stop()]);
    repos.cleanup();
    rmSync(work, { recursive: true, force: true });
  }, { timeout: 30_000 });

  async function psql(conninfo: string, cmd: string): Promise<string> {
    const r = await runProbe('psql', [conninfo, '-X', '-A', '-c', cmd], { env: ENV, timeoutMs: 60_000 });
    return (r.stdout + r.stderr).trimEnd();
  }

  for (const { cmd, allowed = [], fails, pgUser, todo } of COMMANDS) {
    test(cmd, { todo }, async () => {
      const { gateway, postgres } = targets();
      let [ours, theirs] = await Promise.all([psql(gateway, cmd), psql(pgUser ? postgres.replace('user=me', `user=${pgUser}`) : postgres, cmd)]);
      if (fails) {
        assert.match(ours, fails);
        return;
      }
      assert.doesNotMatch(theirs, /ERROR|error:/, `PostgreSQL answers ${cmd}`);
      for (const a of allowed) {
        theirs = a.pg(theirs);
        if (a.gw) ours = a.gw(ours);
      }
      assert.equal(ours, theirs, `${cmd}${allowed.length ? ` (allowed: ${allowed.map((a) => a.why).join('; ')})` : ''}`);
    });
  }
});
