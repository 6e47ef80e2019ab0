/**
 * psql 15's reading backslash commands (the list of `\?`), each run through the real psql against the
 * gateway and against PostgreSQL 15 holding the same tables (the gateway's own `pg_dump -Fc`, restored;
 * the same schema names, the same owner `me`, the same search_path), outputs compared in psql's
 * unaligned format. Only what must differ is normalised, each rule listed with its reason; commands
 * the gateway cannot answer as PostgreSQL does must fail with a clear message, asserted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { describeProbe, runProbe } from './support/probe.js';
import { INFORMATION_SCHEMA_RELATIONS } from '../src/pg/catalog/pg-information-schema.js';

/** The gateway's default search_path, given to both so visibility is the same. */
const SEARCH_PATH = '"$user", public, main, sales';
const envFor = (path: string) => ({ PGTZ: 'UTC', TZ: 'UTC', PGOPTIONS: `-c search_path=${path.replace(/ /g, '\\ ')}` });
const ENV = envFor(SEARCH_PATH);
/** The views fixture's schemas (its tag v1), and the views PostgreSQL can create as the gateway defines them (the others call DuckDB macros). */
const VIEWS_ENV = envFor('"$user", public, main, reporting');
const VIEWS_DUMPED = [
  'main.base',
  'reporting.targets',
  'main.v_base',
  'main.v_over',
  'reporting.v_join',
  'main.v_alias',
];

/** A rewrite of PostgreSQL's output (never the gateway's) before comparing, and why it is allowed. */
interface Allowed {
  why: string;
  pg: (out: string, gateway: string) => string;
  gw?: (out: string) => string;
}

/** Built-in objects belong to the bootstrap superuser `postgres`; on the gateway every object belongs to the session's user. */
const bootstrapOwner: Allowed = {
  why: 'built-in objects are owned by the connected user on the gateway',
  pg: (o) => o.replace(/\|postgres(?=\||$)/gm, '|me'),
};
/** PostgreSQL's built-in text search objects: the gateway serves no text search (to_tsvector is 42883), so it lists none. */
const noTextSearch: Allowed = {
  why: 'the gateway has no text search: it lists no dictionaries, parsers or templates',
  pg: (o) => o.replace(/^(List of text search [a-z]+\n[^\n]+\n)[\s\S]*\(\d+ rows?\)$/, '$1(0 rows)'),
};
/** Operator classes and families are index machinery: no index exists or can be made here, so pg_opclass, pg_opfamily, pg_amop and pg_amproc are empty. */
const noOperatorClasses: Allowed = {
  why: 'no index exists or can be made here: the gateway lists no operator classes or families',
  pg: (o) => o.replace(/^(List of [^\n]+\n[^\n]+\n)[\s\S]*\(\d+ rows?\)$/, '$1(0 rows)'),
};
/**
 * pg_cast and pg_operator list only the casts and operators that work through the gateway
 * (pg-function-catalog.test.ts): PostgreSQL's rows kept for those the gateway lists (a row is known by its
 * first `keyColumns` columns). \do names an operator's function by regproc (every function has its name);
 * \dC joins pg_proc for a cast's, and pg_proc lists only functions callable here (not `numeric(numeric, int4)`),
 * so the casts' Function column is dropped on both sides.
 */
function rowsServed(what: string, keyColumns: number, unnamedFunctions = false, headLines = 2): Allowed {
  const dropFunction = (o: string) => (unnamedFunctions ? dropColumn('Function', '').pg(o, '') : o);
  return {
    why: `${what} lists the ones that work here`,
    pg: (o, gw) => {
      const key = (l: string) => l.split('|').slice(0, keyColumns).join('|');
      const served = new Set(gw.split('\n').map(key));
      const lines = o.split('\n');
      const kept = lines.filter((l, i) => i < headLines || /^\(\d+ rows?\)$/.test(l) || served.has(key(l)));
      return dropFunction(kept.join('\n').replace(/\(\d+ rows?\)$/, `(${kept.length - headLines - 1} rows)`));
    },
    gw: dropFunction,
  };
}
const castsServed = rowsServed('pg_cast', 2, true);
/** pg_class lists the catalog relations the gateway serves (catalog-listed-relations.test.ts): by schema and name (psql's title and header), or by name (a header only). */
const relationsServed = rowsServed('pg_class', 2);
const relationNamesServed = rowsServed('pg_class', 1, false, 1);
const operatorsServed = rowsServed('pg_operator', 4);
/** A column's values dropped on both sides (found by its name in the unaligned header). */
function dropColumn(name: string, why: string): Allowed {
  const drop = (o: string) => {
    const lines = o.split('\n');
    const header = lines.findIndex((l) => l.split('|').includes(name));
    if (header < 0) return o;
    const at = lines[header]!.split('|').indexOf(name);
    const width = lines[header]!.split('|').length;
    return lines
      .map((l, i) =>
        i >= header && l.split('|').length === width
          ? l
              .split('|')
              .filter((_, j) => j !== at)
              .join('|')
          : l,
      )
      .join('\n');
  };
  return { why, pg: drop, gw: drop };
}

/** Each command: the same output as PostgreSQL 15 after the listed rewrites, or a clear failure. */
/** A view's definition: the gateway shows the SQL DuckDB keeps for it, PostgreSQL deparses its own parse tree. */
const viewText: Allowed = {
  why: "a view's definition is the text DuckDB keeps (the same pg_get_viewdef answers), PostgreSQL deparses its parse tree",
  pg: (o) => o.replace(/(\nView definition:|^(?:1 +)?CREATE OR REPLACE VIEW [^\n]* AS)\n[\s\S]*$/, '$1\n<definition>'),
  gw: (o) => o.replace(/(\nView definition:|^(?:1 +)?CREATE OR REPLACE VIEW [^\n]* AS)\n[\s\S]*$/, '$1\n<definition>'),
};

/**
 * The gateway's own views (fdl.refs …) are in schema `fdl`, the members of its extension `fdl`
 * (pg/catalog/fdl-views.ts: pg_dump takes them for built-ins), which the twin has not: the gateway's
 * `fdl` row (or `\dx+`'s block of its objects) is added to PostgreSQL's list. What those rows say is
 * test/catalog-fdl-views.test.ts's.
 */
const gatewayViews: Allowed = {
  why: "the gateway's own views live in schema fdl, the members of its extension fdl, which PostgreSQL has not",
  pg: (o, gw) => {
    const block = /^Objects in extension "fdl"\n[\s\S]*?\(\d+ rows?\)\n/.exec(gw);
    if (block) return block[0] + o;
    const row = gw.split('\n').find((l) => l.startsWith('fdl|'));
    const lines = o.split('\n');
    if (!row || lines.length < 3) return o;
    const body = [...lines.slice(2, -1), row].sort();
    return [...lines.slice(0, 2), ...body, `(${body.length} rows)`].join('\n');
  },
};

/**
 * The information_schema views the gateway serves with PostgreSQL's columns (the rest are not emulated, and
 * routines and parameters have fewer columns): PostgreSQL's list kept to those rows, whose lines must then be
 * the gateway's.
 */
const informationSchemaServed: Allowed = {
  why: "the gateway serves some of information_schema: its views with PostgreSQL 15's columns are listed",
  pg: (o) => {
    const served = new Set(INFORMATION_SCHEMA_RELATIONS.map(([, name]) => name));
    const lines = o.split('\n');
    const kept = lines.filter((l, i) => i < 2 || /^\(\d+ rows?\)$/.test(l) || served.has(l.split('|')[1] ?? ''));
    return kept.join('\n').replace(/\(\d+ rows?\)$/, `(${kept.length - 3} rows)`);
  },
};
/** information_schema's domains carry CHECK constraints and a default in PostgreSQL; the gateway has no domain constraints. */
const domainChecks: Allowed = {
  why: "the gateway lists information_schema's domains without their CHECK constraints and default (no pg_constraint rows for domains)",
  pg: (o) => dropColumn('Check', '').pg(dropColumn('Default', '').pg(o, ''), ''),
  gw: (o) => dropColumn('Check', '').pg(dropColumn('Default', '').pg(o, ''), ''),
};

const COMMANDS: Array<{
  cmd: string;
  allowed?: Allowed[];
  fails?: RegExp;
  pgUser?: string;
  todo?: string;
  views?: true;
}> = [
  { cmd: '\\d' },
  { cmd: '\\d sales.orders' },
  { cmd: '\\d+ sales.orders' },
  {
    cmd: '\\d+',
    allowed: [dropColumn('Size', 'the gateway reports the Parquet bytes a table reads, PostgreSQL its heap pages')],
  },
  { cmd: '\\dt' },
  {
    cmd: '\\dt+',
    allowed: [dropColumn('Size', 'the gateway reports the Parquet bytes a table reads, PostgreSQL its heap pages')],
  },
  { cmd: '\\dt sales.*' },
  { cmd: '\\dtS pg_class', allowed: [bootstrapOwner] },
  {
    cmd: '\\dS pg_namespace',
    allowed: [
      {
        why: 'the emulated catalog has no indexes',
        pg: (o) => o.replace(/\nIndexes:\n(?: {4}.*\n?)*/g, '\n').trimEnd(),
      },
    ],
  },
  {
    cmd: '\\dS pg_class',
    allowed: [
      {
        why: 'the emulated catalog has no indexes',
        pg: (o) => o.replace(/\nIndexes:\n(?: {4}.*\n?)*/g, '\n').trimEnd(),
      },
    ],
  },
  {
    cmd: '\\dS+ pg_namespace',
    allowed: [
      {
        why: 'the emulated catalog has no indexes',
        pg: (o) => o.replace(/\nIndexes:\n(?: {4}.*\n?)*/g, '\n').trimEnd(),
      },
    ],
  },
  // PostgreSQL refuses pg_global's size to a user without pg_read_all_stats, as every gateway user is.
  { cmd: '\\db+', fails: /^ERROR: {2}permission denied for tablespace pg_global$/ },
  { cmd: '\\da' },
  { cmd: '\\dA' },
  { cmd: '\\dA+' },
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
  { cmd: '\\dn', allowed: [gatewayViews] },
  { cmd: '\\dn+', allowed: [gatewayViews] },
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
  { cmd: '\\dL+', allowed: [bootstrapOwner] },
  { cmd: '\\dx', allowed: [gatewayViews] },
  { cmd: '\\dx+', allowed: [gatewayViews] },
  { cmd: '\\dT+ int4', allowed: [bootstrapOwner] },
  { cmd: '\\dT+' },
  { cmd: '\\l basic' },
  {
    cmd: '\\l+ basic',
    allowed: [dropColumn('Size', 'the gateway serves Parquet files; PostgreSQL counts its data directory')],
  },
  { cmd: '\\dFd', allowed: [noTextSearch] },
  { cmd: '\\dFp', allowed: [noTextSearch] },
  { cmd: '\\dFt', allowed: [noTextSearch] },
  { cmd: '\\dFd+', allowed: [noTextSearch] },
  { cmd: '\\dF', allowed: [noTextSearch] },
  {
    cmd: '\\dF+',
    allowed: [
      {
        why: 'the gateway has no text search: it has no configuration to describe',
        pg: () => 'error: Did not find any text search configurations.',
      },
    ],
  },
  { cmd: '\\dC', allowed: [castsServed] },
  { cmd: '\\dC+', allowed: [castsServed] },
  { cmd: '\\do+ +', allowed: [operatorsServed] },
  { cmd: '\\do pg_catalog.=', allowed: [operatorsServed] },
  // Views (the views fixture at v1, beside PostgreSQL's views of the same definitions).
  { cmd: '\\dv main.v_base', views: true },
  { cmd: '\\dv+ reporting.*', views: true },
  { cmd: '\\d main.v_base', views: true },
  { cmd: '\\d+ main.v_base', views: true, allowed: [viewText] },
  { cmd: '\\d+ reporting.v_join', views: true, allowed: [viewText] },
  { cmd: '\\sv main.v_over', views: true, allowed: [viewText] },
  { cmd: '\\sv+ reporting.v_join', views: true, allowed: [viewText] },
  {
    cmd: '\\dt+ reporting.*',
    views: true,
    allowed: [dropColumn('Size', 'the gateway reports the Parquet bytes a table reads, PostgreSQL its heap pages')],
  },
  // PostgreSQL's definition of each function the gateway answers as PostgreSQL does (every one is compared below).
  { cmd: '\\df date_trunc' },
  { cmd: '\\sf date_trunc(text,timestamptz,text)' },
  { cmd: '\\sf pg_catalog.lower(text)' },
  { cmd: '\\sf date_trunc(text,timestamp)' },
  { cmd: '\\sf+ pg_catalog.upper(text)' },
  // Refused as PostgreSQL refuses them (the same words).
  { cmd: '\\sf abs', fails: /^error: ERROR: {2}more than one function named "abs"$/ },
  // The rest of \? that reads: operator classes and families, large objects, partitions by kind, + forms.
  { cmd: '\\dAc', allowed: [noOperatorClasses] },
  { cmd: '\\dAc+', allowed: [noOperatorClasses] },
  { cmd: '\\dAf', allowed: [noOperatorClasses] },
  { cmd: '\\dAf+', allowed: [noOperatorClasses] },
  { cmd: '\\dAo', allowed: [noOperatorClasses] },
  { cmd: '\\dAp', allowed: [noOperatorClasses] },
  { cmd: '\\lo_list' },
  { cmd: '\\dPi' },
  { cmd: '\\dPt' },
  { cmd: '\\dPn+' },
  { cmd: '\\dE+' },
  { cmd: '\\det+' },
  { cmd: '\\dm+' },
  { cmd: '\\dc+' },
  { cmd: '\\du+ me' },
  { cmd: '\\dg+ me' },
  // psql's own words when pg_ts_parser has no row (\\dFp lists none, as compared above).
  { cmd: '\\dFp+', fails: /^error: Did not find any text search parsers\.$/ },
  { cmd: '\\dFt+', allowed: [noTextSearch] },
  { cmd: '\\dfa' },
  { cmd: '\\dfn' },
  { cmd: '\\dfp' },
  { cmd: '\\dft' },
  { cmd: '\\dfw' },
  { cmd: '\\dd sales.*' },
  { cmd: 'SELECT * FROM sales.orders \\gdesc' },
  { cmd: '\\dTS+ int4', allowed: [bootstrapOwner] },
  { cmd: '\\sf no_such_function', fails: /^error: ERROR: {2}function "no_such_function" does not exist$/ },
  // information_schema's views in pg_class and pg_attribute, with PostgreSQL 15's OIDs, columns, domains and
  // definitions (pg/catalog/pg-information-schema.ts), as pg_catalog's.
  { cmd: '\\d information_schema.tables' },
  { cmd: '\\d+ information_schema.columns' },
  { cmd: '\\sv information_schema.views' },
  { cmd: '\\dv information_schema.*', allowed: [bootstrapOwner, informationSchemaServed] },
  { cmd: '\\dD information_schema.*', allowed: [domainChecks] },
  // pg_catalog's views with PostgreSQL 15's own definitions and options (pg/catalog/pg-viewdefs.ts).
  { cmd: '\\sv pg_catalog.pg_tables' },
  { cmd: '\\sv+ pg_catalog.pg_stats' },
  { cmd: '\\d+ pg_catalog.pg_roles' },
  { cmd: '\\dv pg_catalog.*', allowed: [bootstrapOwner, relationsServed] },
  {
    cmd: `SELECT c.relname, md5(pg_catalog.pg_get_viewdef(c.oid)) AS plain, md5(pg_catalog.pg_get_viewdef(c.oid, true)) AS pretty, md5(v.definition) AS listed, c.reloptions
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_views v ON v.viewname = c.relname AND v.schemaname = 'pg_catalog'
      WHERE c.relnamespace = 11 AND c.relkind = 'v' ORDER BY 1`.replace(/\s+/g, ' '),
    allowed: [relationNamesServed],
  },
];

describe('psql 15 describe commands: the gateway answers as PostgreSQL 15', { concurrency: 4 }, () => {
  let gw: RunningGateway;
  let pg: PgCluster;
  const repos = copyFixtures('repos/basic', 'repos/views');
  const work = mkdtempSync(join(tmpdir(), 'fdl-psql-describe-'));
  const targets = (views = false) => ({
    gateway: `host=${gw.host} port=${gw.port} dbname=${views ? 'views@v1' : 'basic'} user=me`,
    postgres: `host=${pg.host} port=${pg.port} dbname=${views ? 'views' : 'basic'} user=me`,
  });

  before(
    async () => {
      [gw, pg] = await Promise.all([
        startGateway(
          [
            '--repo',
            `basic=${repos.path('repos/basic')}`,
            '--repo',
            `views=${repos.path('repos/views')}`,
            '--cache-dir',
            join(repos.dir, 'cache'),
          ],
          { timeoutMs: 120_000 },
        ), // a loaded machine starts slowly
        startPgCluster({ settings: { TimeZone: 'UTC' } }),
      ]);
      // The same tables, schemas, comments and owner: the gateway's own dump (test/pg-dump.test.ts proves it restores).
      pg.psql('CREATE ROLE me LOGIN; CREATE DATABASE basic OWNER me; CREATE DATABASE views OWNER me;');
      for (const views of [false, true]) {
        const db = views ? 'views' : 'basic';
        // A dump of named tables creates no schemas.
        pg.psql(
          views
            ? 'DROP SCHEMA public; CREATE SCHEMA main AUTHORIZATION me; CREATE SCHEMA reporting AUTHORIZATION me;'
            : 'DROP SCHEMA public;',
          ['-d', db],
        );
        const file = join(work, `${db}.dump`);
        const only = views ? VIEWS_DUMPED.flatMap((t) => ['-t', t]) : [];
        for (const [cmd, args] of [
          ['pg_dump', ['-Fc', ...only, '-f', file, targets(views).gateway]],
          ['pg_restore', ['--exit-on-error', '-d', targets(views).postgres, file]],
        ] as const) {
          const r = await runProbe(cmd, [...args], { env: views ? VIEWS_ENV : ENV, timeoutMs: 120_000 });
          assert.equal(r.code, 0, `${cmd}: ${describeProbe(r)}`);
        }
      }
    },
    { timeout: 180_000 },
  );
  after(
    async () => {
      await Promise.all([gw?.stop(), pg?.stop()]);
      repos.cleanup();
      rmSync(work, { recursive: true, force: true });
    },
    { timeout: 30_000 },
  );

  /**
   * Every command of one group in one psql session (a connection per command costs seconds on a
   * loaded machine), each output found after its marker; psql flushes a result before the next
   * command's error, so stdout and stderr interleave in order.
   */
  const outputs = new Map<string, Promise<Map<string, string>>>();
  function session(conninfo: string, views: boolean, cmds: string[]): Promise<Map<string, string>> {
    const key = `${conninfo} ${views}`;
    let run = outputs.get(key);
    if (!run) {
      const marker = (i: number) => `<<<fdl-describe-${i}>>>`;
      const script = cmds.map((c, i) => `\\echo ${marker(i)}\n${c}\n`).join('');
      const file = join(work, `script-${outputs.size}.psql`);
      writeFileSync(file, script);
      run = runProbe('sh', ['-c', 'exec psql "$0" -X -A -f "$1" 2>&1', conninfo, file], {
        env: views ? VIEWS_ENV : ENV,
        timeoutMs: 240_000,
      }).then((r) => {
        const out = new Map<string, string>();
        cmds.forEach((c, i) => {
          const from = r.stdout.indexOf(`${marker(i)}\n`);
          const to = i + 1 < cmds.length ? r.stdout.indexOf(marker(i + 1)) : r.stdout.length;
          assert.ok(from >= 0 && to >= from, `${c}: no output found\n${describeProbe(r)}`);
          // An error is prefixed with the script's name and line: not part of the answer.
          out.set(
            c,
            r.stdout
              .slice(from + marker(i).length + 1, to)
              .replace(/^psql:[^:]+:\d+: /gm, '')
              .trimEnd(),
          );
        });
        return out;
      });
      outputs.set(key, run);
    }
    return run;
  }

  test("pg_get_functiondef (\\sf) of every function pg_proc lists is PostgreSQL's, and an aggregate is refused as there", async () => {
    const ours = await client(gw, 'basic', { user: 'me' });
    const theirs = await client(pg, 'basic', { user: 'me' });
    try {
      const listed = (
        await ours.query(`SELECT oid::int8 AS oid, prokind FROM pg_catalog.pg_proc WHERE prolang = 12 ORDER BY oid`)
      ).rows as Array<{ oid: string; prokind: string }>;
      const functions = listed.filter((r) => r.prokind !== 'a').map((r) => r.oid);
      assert.ok(functions.length > 100, `${functions.length} functions listed`);
      const sql = (oids: string[]) =>
        `SELECT oid::int8 AS oid, pg_catalog.pg_get_functiondef(oid) AS def FROM pg_catalog.pg_proc WHERE oid::int8 IN (${oids.join(', ')}) ORDER BY oid`;
      const [a, b] = await Promise.all([ours.query(sql(functions)), theirs.query(sql(functions))]);
      assert.equal(a.rows.length, functions.length);
      const text = (rows: Array<{ oid: unknown; def: unknown }>) =>
        rows.map((r) => `${String(r.oid)}: ${String(r.def)}`);
      assert.deepEqual(text(a.rows), text(b.rows));
      const aggregate = listed.find((r) => r.prokind === 'a')!.oid;
      const refusal = async (c: typeof ours) =>
        c.query(`SELECT pg_catalog.pg_get_functiondef(${aggregate})`).then(
          () => 'answered',
          (e: { message: string }) => e.message,
        );
      const [ra, rb] = await Promise.all([refusal(ours), refusal(theirs)]);
      assert.match(rb, /is an aggregate function/);
      assert.equal(ra, rb);
    } finally {
      await Promise.all([ours.end(), theirs.end()]);
    }
  });

  for (const { cmd, allowed = [], fails, pgUser, todo, views = false } of COMMANDS) {
    test(`${cmd}${views ? ' (views)' : ''}`, { todo }, async () => {
      const { gateway, postgres } = targets(views);
      const group = COMMANDS.filter((c) => (c.views ?? false) === views);
      const theirsConn = pgUser ? postgres.replace('user=me', `user=${pgUser}`) : postgres;
      const [oursAll, theirsAll] = await Promise.all([
        session(
          gateway,
          views,
          group.map((c) => c.cmd),
        ),
        session(
          theirsConn,
          views,
          group.filter((c) => c.pgUser === pgUser).map((c) => c.cmd),
        ),
      ]);
      let ours = oursAll.get(cmd)!;
      let theirs = theirsAll.get(cmd)!;
      if (fails) {
        assert.match(ours, fails);
        // Where PostgreSQL refuses too, it says the same.
        if (/ERROR:/.test(theirs)) assert.equal(ours, theirs);
        return;
      }
      assert.doesNotMatch(theirs, /ERROR:/, `PostgreSQL answers ${cmd}`);
      for (const a of allowed) {
        theirs = a.pg(theirs, ours);
        if (a.gw) ours = a.gw(ours);
      }
      assert.equal(
        ours,
        theirs,
        `${cmd}${allowed.length ? ` (allowed: ${allowed.map((a) => a.why).join('; ')})` : ''}`,
      );
    });
  }
});
