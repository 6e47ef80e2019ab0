/**
 * What an ordinary account cannot learn (docs/security.md): a user granted one tag of one
 * repository, logging in with SCRAM, learns nothing of the repositories and refs they are not
 * granted, no literal they send reaches the log, and no message names a server path.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { CLI, copyFixtures, FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { hideServerRoots } from '../src/engine/duckdb-errors.js';

const refs = (
  JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: { basic: { refs: Record<string, string> } };
  }
).repos.basic.refs;
const hashPassword = (password: string) =>
  execFileSync(process.execPath, [CLI, 'hash-password'], { input: password }).toString().trim();

/** Every name the user `ana` (granted basic@tags/v1 only) must never see. */
const UNGRANTED = [
  'secretrepo',
  'heads/main',
  'heads/dev',
  'requests/1',
  'tags/v2',
  refs['refs/heads/main']!,
  refs['refs/heads/dev']!,
  refs['refs/tags/v2']!,
];

interface ErrorFields {
  code?: string;
  severity?: string;
  message: string;
  detail?: string;
  hint?: string;
}

const fields = (e: unknown): ErrorFields => {
  const { code, severity, message, detail, hint } = e as ErrorFields;
  return { code, severity, message, detail, hint };
};

/** The error fields with the name the user typed replaced, to compare two answers. */
function shape(e: ErrorFields, typed: string): ErrorFields {
  const strip = (s: string | undefined) => s?.split(typed).join('<NAME>');
  return {
    code: e.code,
    severity: e.severity,
    message: strip(e.message)!,
    detail: strip(e.detail),
    hint: strip(e.hint),
  };
}

/** Fails when `e` names an ungranted repository, ref or version, other than the one the user typed. */
function assertNamesNothingUngranted(e: ErrorFields | string, what: string, typed?: string): void {
  let text = typeof e === 'string' ? e : JSON.stringify(e);
  if (typed) text = text.split(typed).join('<NAME>');
  for (const name of UNGRANTED) assert.ok(!text.includes(name), `${what} names ${name}: ${text}`);
}

describe('what an ordinary account cannot learn', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/deletes');
  const connect = async (user: string, database: string, password = `${user}-pw`) => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user, password, database });
    await c.connect();
    return c;
  };
  const connectError = async (user: string, database: string): Promise<ErrorFields> => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user, password: `${user}-pw`, database });
    try {
      await c.connect();
    } catch (e) {
      return fields(e);
    }
    await c.end();
    assert.fail(`${user} connected to ${database}`);
  };
  const queryError = async (c: pg.Client, sql: string | pg.QueryConfig, params?: unknown[]): Promise<ErrorFields> => {
    try {
      await c.query(sql, params);
    } catch (e) {
      return fields(e);
    }
    assert.fail(`${sql} succeeded`);
  };

  before(async () => {
    const users = {
      ana: { password: hashPassword('ana-pw'), grants: { basic: ['tags/v1'] } },
      tagger: { password: hashPassword('tagger-pw'), grants: { basic: ['tags/*'] } },
      root: { password: hashPassword('root-pw') },
    };
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify({ users }));
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `secretrepo=${repos.path('repos/deletes')}`,
      '--config',
      join(repos.dir, 'config.json'),
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('an ungranted repository answers byte for byte like one that does not exist (3D000), naming only granted repositories', async () => {
    const ungranted = await connectError('ana', 'secretrepo');
    const missing = await connectError('ana', 'nosuchrepo');
    assert.equal(ungranted.code, '3D000', JSON.stringify(ungranted));
    assert.deepEqual(shape(ungranted, 'secretrepo'), shape(missing, 'nosuchrepo'));
    assert.equal(missing.message, 'database "nosuchrepo" does not exist');
    assertNamesNothingUngranted(missing, 'a missing repository');
    assert.deepEqual(
      shape(await connectError('ana', 'secretrepo@main'), 'secretrepo'),
      shape(await connectError('ana', 'nosuchrepo@main'), 'nosuchrepo'),
    );
    const noRepo = await connectError('ana', '@v1');
    assert.equal(noRepo.code, '3D000');
    assertNamesNothingUngranted(noRepo, 'a database naming no repository');
    // An unrestricted user still learns what is served.
    assert.match((await connectError('root', 'nosuchrepo')).detail ?? '', /basic, secretrepo/);
  });

  test('an ungranted ref answers byte for byte like one that does not exist; nothing lists ungranted refs', async () => {
    for (const [ungranted, missing] of [
      ['dev', 'nope'],
      ['heads/main', 'heads/nope'],
      ['tags/v2', 'tags/v9'],
      ['requests/1', 'requests/9'],
      [refs['refs/tags/v2']!, '01a23632-0000-7000-8000-000000000000'],
      ['', 'HEAD'],
    ]) {
      const a = await connectError('ana', `basic@${ungranted}`);
      const b = await connectError('ana', `basic@${missing}`);
      assert.equal(a.code, '42501', `${ungranted}: ${JSON.stringify(a)}`);
      if (ungranted !== '') assert.deepEqual(shape(a, ungranted), shape(b, missing), `${ungranted} vs ${missing}`);
      assertNamesNothingUngranted(a, `basic@${ungranted}`, ungranted || undefined);
      assertNamesNothingUngranted(b, `basic@${missing}`, missing);
    }
    // Where the user's grants cover a name, an unknown one is 3D000 and its hint lists granted refs only.
    const unknown = await connectError('tagger', 'basic@tags/v9');
    assert.equal(unknown.code, '3D000');
    assert.equal(unknown.hint, 'available refs: tags/v1, tags/v2');
    // A short name resolves among granted refs only: `main` is a branch the tagger may not read,
    // `v2` is a tag they may.
    const main = await connectError('tagger', 'basic@main');
    assert.equal(main.code, '42501');
    assert.deepEqual(shape(main, 'main'), shape(await connectError('tagger', 'basic@nomain'), 'nomain'));
    await (await connect('tagger', 'basic@v2')).end();
  });

  test('inside a session: SET fdl.ref, "NAME@REF" catalogs, pg_database and the fdl views name only what is granted', async () => {
    const c = await connect('ana', 'basic@v1');
    try {
      assert.deepEqual(
        shape(await queryError(c, "SET fdl.ref = 'dev'"), 'dev'),
        shape(await queryError(c, "SET fdl.ref = 'nope'"), 'nope'),
      );
      const a = await queryError(c, 'select * from "secretrepo@main".main.t');
      const b = await queryError(c, 'select * from "nosuchrepo@main".main.t');
      assert.deepEqual(shape(a, 'secretrepo'), shape(b, 'nosuchrepo'));
      assert.deepEqual(
        shape(await queryError(c, 'select * from "basic@dev".sales.orders'), 'dev'),
        shape(await queryError(c, 'select * from "basic@nope".sales.orders'), 'nope'),
      );
      // the database as the session named it: not the repository's bare name, whose HEAD is not ana's to read
      assert.deepEqual((await c.query('select datname from pg_database order by 1')).rows, [{ datname: 'basic@v1' }]);
      assert.deepEqual((await c.query('select name from fdl.refs')).rows, [{ name: 'tags/v1' }]);
      assert.deepEqual((await c.query('select id from fdl.versions')).rows, [{ id: refs['refs/tags/v1'] }]);
      // Whatever else a catalog or status view says, it names nothing ungranted.
      for (const sql of [
        'select * from pg_database',
        'select * from pg_stat_activity',
        'select * from fdl.session',
        'select * from fdl.cache',
        'select * from pg_namespace',
        'select * from information_schema.schemata',
      ]) {
        assertNamesNothingUngranted(JSON.stringify((await c.query(sql)).rows), sql);
      }
    } finally {
      await c.end();
    }
  });

  test('DuckDB\'s "Did you mean" names no other version, and a schema-qualified macro call of another catalog is refused', async () => {
    // Another user's session attaches heads/main: its database is then in the engine's catalog.
    const root = await connect('root', 'basic@main');
    const mainVersion = (await root.query('show fdl.version')).rows[0]['fdl.version'] as string;
    const c = await connect('ana', 'basic@v1');
    try {
      for (const sql of [
        'select 1::sales.nosuchtype',
        'select 1::nosuchtype',
        'select * from sales.nosuchtable',
        'select nosuchfunction(1)',
      ]) {
        const e = await queryError(c, sql);
        const all = `${e.message}\n${e.detail ?? ''}\n${e.hint ?? ''}`;
        assert.ok(!all.includes(mainVersion) && !all.includes('@') && !all.includes('__fdl_'), `${sql}: ${all}`);
      }
      assert.equal((await queryError(c, `select "BASIC@${mainVersion}".nosuch(1)`)).code, '42501');
      // found by a second review: SHOW … FROM over the frozen metadata, and U& spelling the emulation's name through the rewrite
      for (const n of [1, 2, 3])
        assert.equal((await queryError(c, `FROM (SHOW TABLES FROM "__fdl_meta_${n}")`)).code, '42501');
      assert.equal((await queryError(c, `FROM (SHOW TABLES FROM "BASIC@${mainVersion}".sales)`)).code, '42501');
      assert.equal((await queryError(c, 'select * from U&"fdl\\005fpg".pgcat._dbs, pg_class limit 2')).code, '0A000');
    } finally {
      await c.end();
      await root.end();
    }
  });

  test('no literal a statement or its parameters carry reaches the log; the client still gets the full message', async () => {
    const c = await connect('ana', 'basic@v1');
    const secrets: string[] = [];
    const secret = (tag: string) => (secrets.push(`hunter2-${tag}-secret`), `hunter2-${tag}-secret`);
    try {
      const simple = await queryError(c, `select '${secret('simple')}'::int`);
      assert.equal(simple.code, '22P02');
      assert.ok(
        simple.message.includes('hunter2-simple-secret'),
        `the client sees PostgreSQL's message: ${simple.message}`,
      );
      assert.equal(
        (await queryError(c, { text: `select '${secret('extended')}'::int`, queryMode: 'extended' } as never)).code,
        '22P02',
      );
      assert.equal((await queryError(c, 'select $1::int', [secret('bind')])).code, '22P02');
      assert.equal(
        (await queryError(c, 'select * from sales.orders where order_id = $1', [secret('typed')])).code,
        '22P02',
      );
      assert.equal((await queryError(c, `select '${secret('unterminated')}`)).code, '42601');
      assert.equal((await queryError(c, `select * from sales.orders where "${secret('ident')}" = 1`)).code, '42703');
      secrets.push('987654321987654321987654321');
      assert.equal((await queryError(c, 'select 987654321987654321987654321::int')).code, '22003'); // PostgreSQL: integer out of range
      // DuckDB's messages quote some values without quotes: a regex, error()'s own argument, a ref name
      assert.notEqual(
        (
          await queryError(c, 'select count(*) from sales.orders where regexp_matches(status, $1)', [
            `${secret('regex')}(`,
          ])
        ).code,
        undefined,
      );
      assert.notEqual((await queryError(c, 'select error($1)', [secret('error')])).code, undefined);
      assert.equal((await queryError(c, `set fdl.ref = '${secret('ref')}'`)).code, '42501');
      assert.equal((await c.query('select 1 as one')).rows[0].one, 1);
    } finally {
      await c.end();
    }
    await new Promise((r) => setTimeout(r, 200)); // the log is written asynchronously
    const log = gw.stderr();
    const failures = log
      .split('\n')
      .filter(
        (l) => l.includes('"event":"statement"') && l.includes('"user":"ana"') && !l.includes('"sqlstate":"00000"'),
      );
    assert.ok(failures.length >= secrets.length, `one audit line per failure:\n${failures.join('\n')}`);
    for (const line of failures) assert.match(line, /"sql_sha256":"[0-9a-f]{16}".*"sqlstate":"[0-9A-Z]{5}"/, line);
    for (const s of secrets)
      assert.ok(
        !log.includes(s),
        `the log holds ${s}:\n${log
          .split('\n')
          .filter((l) => l.includes(s))
          .join('\n')}`,
      );
  });

  test('every pg_catalog and information_schema relation, and the functions that report the server, name no server folder and nothing ungranted', async () => {
    // Another user's sessions attach heads/main and the other repository in the same process.
    const root = await connect('root', 'basic@main');
    const rootSecret = await connect('root', 'secretrepo');
    const c = await connect('ana', 'basic@v1');
    const serverFolders = [repos.dir, join(repos.dir, 'cache')];
    const mainVersion = (await root.query('show fdl.version')).rows[0]['fdl.version'] as string;
    const assertClean = (text: string, what: string) => {
      assertNamesNothingUngranted(text, what);
      for (const folder of serverFolders) assert.ok(!text.includes(folder), `${what} names ${folder}`);
      assert.ok(!text.includes(mainVersion) && !text.includes('__fdl_'), `${what}: ${text.slice(0, 300)}`);
    };
    try {
      const relations = (
        await c.query(
          `select n.nspname || '.' || c.relname as r from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname in ('pg_catalog', 'information_schema', 'fdl') and c.relkind in ('r', 'v') order by 1`,
        )
      ).rows.map((row) => row.r as string);
      // 99 since session 56: pg_class lists only the catalog relations the emulation serves
      assert.ok(relations.length > 90, `${relations.length} relations`);
      let answered = 0;
      for (const r of relations) {
        try {
          assertClean(JSON.stringify((await c.query(`select * from ${r}`)).rows), r);
          answered++;
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          assertClean(JSON.stringify(fields(e)), r); // the emulation's refusal of a superuser-only view
        }
      }
      assert.ok(answered > 80, `${answered} relations answered`);
      for (const sql of [
        'select pg_get_viewdef(c.oid) from pg_class c',
        'select pg_get_viewdef(c.oid, true) from pg_class c',
        'select name, current_setting(name, true) from pg_settings',
        'select version(), current_database(), current_catalog, current_schemas(true), pg_database_size(current_database())',
        'select pg_tablespace_location(oid) from pg_tablespace',
        'select obj_description(c.oid), pg_relation_size(c.oid) from pg_class c',
        "select current_setting('fdl.repository'), current_setting('fdl.version'), current_setting('fdl.ref')",
      ]) {
        assertClean(JSON.stringify((await c.query(sql)).rows), sql);
      }
    } finally {
      await c.end();
      await root.end();
      await rootSecret.end();
    }
  });

  test("the emulation's internal macros are unknown functions to a client (42883, as PostgreSQL's pg_catalog has none), the rewrite's own use unchanged", async () => {
    const c = await connect('ana', 'basic@v1');
    try {
      const before = (await c.query('select count(*)::int as n, avg(amount)::text as a from sales.orders')).rows;
      for (const sql of [
        'select pg_catalog._pgsem_p10(5)',
        'select PG_CATALOG._PGSEM_P10(5)',
        'select _pgsem_p10(5)',
        "select _pgsem_p10(5), 'pg_'",
        'FROM (select pg_catalog._pgsem_p10(5))',
        "select pg_catalog._var('repositories')",
        "select _var('user'), 'pg_'",
        'select pg_catalog._user()',
        'select pg_catalog._dbname()',
        'select _pg_expandarray(array[1])',
        'select pg_catalog._pg_expandarray(array[1])',
      ]) {
        const e = await queryError(c, sql);
        assert.equal(e.code, '42883', `${sql}: ${JSON.stringify(e)}`);
        // PostgreSQL's own words for an unknown function, the arguments' types where the parse decides them
        assert.match(e.message, /^function (?:pg_catalog\.)?_\w+\([\w ,]*\) does not exist$/, sql);
      }
      // information_schema's own helper stays callable by its PostgreSQL name, and the rewrite still calls the macros
      assert.deepEqual((await c.query('select (information_schema._pg_expandarray(array[7, 8])).x as x')).rows, [
        { x: 7 },
        { x: 8 },
      ]);
      assert.deepEqual(
        (await c.query('select count(*)::int as n, avg(amount)::text as a from sales.orders')).rows,
        before,
      );
    } finally {
      await c.end();
    }
  });

  test("has_*_privilege: an unknown or ungranted name is PostgreSQL's error for an unknown object, a visible one is readable and not writable", async () => {
    const c = await connect('ana', 'basic@v1');
    try {
      const value = async (sql: string) => Object.values((await c.query(sql)).rows[0] as object)[0];
      // PostgreSQL 15's answers for an object it does not have (acl.c, namespace.c; checked against a PG 15 cluster)
      for (const [sql, code] of [
        ["select has_table_privilege('nosuch.t', 'SELECT')", '3F000'],
        ["select has_table_privilege('nosuch', 'SELECT')", '42P01'],
        ["select has_table_privilege('sales.nosuch', 'SELECT')", '42P01'],
        ["select has_any_column_privilege('sales.nosuch', 'SELECT')", '42P01'],
        ["select has_table_privilege('sales.orders', 'FOO')", '22023'],
        ["select has_table_privilege('nobody', 'sales.orders', 'SELECT')", '42704'],
        ["select has_schema_privilege('nosuch', 'USAGE')", '3F000'],
        ["select has_column_privilege('sales.orders', 'nosuch', 'SELECT')", '42703'],
        ["select has_database_privilege('nosuchdb', 'CONNECT')", '3D000'],
        ["select has_database_privilege('secretrepo', 'CONNECT')", '3D000'],
        ["select has_database_privilege('basic', 'CONNECT')", '3D000'], // the bare name's HEAD is not ana's
        ["select has_database_privilege('basic@v2', 'CONNECT')", '3D000'],
        // the other kinds (each was true for anything): PostgreSQL 15's answers to an ordinary role
        ["select has_function_privilege('now', 'EXECUTE')", '22P02'],
        ["select has_function_privilege('nosuch()', 'EXECUTE')", '42883'],
        ["select has_function_privilege('length(nosuchtype)', 'EXECUTE')", '42704'],
        ["select has_function_privilege('nosuch.f()', 'EXECUTE')", '3F000'],
        ["select has_function_privilege('length(text)', 'USAGE')", '22023'],
        ["select has_function_privilege('nobody', 'now()', 'EXECUTE')", '42704'],
        ["select has_type_privilege('nosuch', 'USAGE')", '42704'],
        ["select has_type_privilege('int4', 'EXECUTE')", '22023'],
        ["select has_sequence_privilege('nosuch', 'USAGE')", '42P01'],
        ["select has_sequence_privilege('sales.orders', 'USAGE')", '42809'],
        ["select has_sequence_privilege('pg_class'::regclass::oid, 'SELECT')", '42809'],
        ["select has_sequence_privilege('pg_class', 'FOO')", '22023'],
        ["select has_language_privilege('nosuch', 'USAGE')", '42704'],
        ["select has_tablespace_privilege('nosuch', 'CREATE')", '42704'],
        ["select has_tablespace_privilege('pg_default', 'USAGE')", '22023'],
        ["select has_foreign_data_wrapper_privilege('nosuch', 'USAGE')", '42704'],
        ["select has_server_privilege('nosuch', 'USAGE')", '42704'],
        ["select has_parameter_privilege('work_mem', 'USAGE')", '22023'],
        ["select has_parameter_privilege('nobody', 'work_mem', 'SET')", '42704'],
      ] as const) {
        const e = await queryError(c, sql);
        assert.equal(e.code, code, `${sql}: ${JSON.stringify(e)}`);
        assertNamesNothingUngranted(e, sql, sql.match(/'([^']+)', 'CONNECT'/)?.[1]);
      }
      // an ungranted repository answers byte for byte as one that does not exist
      assert.deepEqual(
        shape(await queryError(c, "select has_database_privilege('secretrepo', 'CONNECT')"), 'secretrepo'),
        shape(await queryError(c, "select has_database_privilege('nosuchdb', 'CONNECT')"), 'nosuchdb'),
      );
      for (const [sql, want] of [
        ["select has_table_privilege('sales.orders', 'SELECT')", true],
        ["select has_table_privilege('sales.orders', 'select, insert')", true],
        ["select has_table_privilege('sales.orders', 'INSERT')", false],
        ["select has_table_privilege('sales.orders', 'SELECT WITH GRANT OPTION')", false],
        ["select has_table_privilege('ana', 'sales.orders', 'SELECT')", true],
        ["select has_table_privilege('pg_class', 'SELECT')", true],
        ["select has_table_privilege(999999::oid, 'SELECT')", null],
        ["select has_column_privilege('sales.orders', 'amount', 'SELECT')", true],
        ["select has_column_privilege('sales.orders', 'amount', 'UPDATE')", false],
        ["select has_column_privilege('sales.orders', 99::int2, 'SELECT')", null],
        ["select has_schema_privilege('sales', 'USAGE')", true],
        ["select has_schema_privilege('sales', 'CREATE')", false],
        ["select has_database_privilege('basic@v1', 'CONNECT')", true],
        ["select has_database_privilege('basic@v1', 'CREATE')", false],
        ["select has_database_privilege(999999::oid, 'CONNECT')", null],
        ["select has_function_privilege('now()', 'EXECUTE')", true],
        ["select has_function_privilege('ana', 'pg_catalog.length(text)', 'execute')", true],
        ["select has_function_privilege('now()', 'EXECUTE WITH GRANT OPTION')", false],
        ["select has_function_privilege(1299::oid, 'EXECUTE')", true],
        ["select has_function_privilege(999999::oid, 'EXECUTE')", null],
        ["select has_type_privilege('integer', 'USAGE')", true],
        ["select has_type_privilege(999999::oid, 'USAGE')", null],
        ["select has_sequence_privilege(999999::oid, 'USAGE')", null],
        ["select has_language_privilege('plpgsql', 'USAGE')", true],
        ["select has_language_privilege(999999::oid, 'USAGE')", null],
        ["select has_tablespace_privilege('pg_default', 'CREATE')", false],
        ["select has_foreign_data_wrapper_privilege(999999::oid, 'USAGE')", null],
        ["select has_server_privilege(999999::oid, 'USAGE')", null],
        ["select has_parameter_privilege('work_mem', 'SET')", false],
        ["select has_parameter_privilege('nosuch', 'ALTER SYSTEM')", false],
      ] as const) {
        assert.equal(await value(sql), want, sql);
      }
      // over the catalog as clients ask it: every relation the session sees is readable
      assert.equal(
        await value(
          "select count(*) filter (where not has_table_privilege(c.oid, 'SELECT'))::int from pg_class c where c.relkind in ('r', 'v')",
        ),
        0,
      );
    } finally {
      await c.end();
    }
  });

  test("a moved tag is refused XX001 naming only the version it was recorded at, never the one it names now (another ref's, ungranted)", async () => {
    const c = await connect('ana', 'basic@v1'); // the ledger holds tags/v1 -> its version
    await c.end();
    const ref = join(repos.path('repos/basic'), 'refs', 'tags', 'v1');
    const kept = readFileSync(ref);
    writeFileSync(ref, `${refs['refs/heads/main']}\n`);
    try {
      await new Promise((r) => setTimeout(r, 2_500)); // past the ref cache's 2 s
      const e = await connectError('ana', 'basic@v1');
      assert.equal(e.code, 'XX001', JSON.stringify(e));
      assert.match(
        e.message,
        new RegExp(`^tag refs/tags/v1 of repository basic moved from version ${refs['refs/tags/v1']};`),
      );
      assertNamesNothingUngranted(e, 'a moved tag');
    } finally {
      writeFileSync(ref, kept);
    }
  });
});

describe('no client-visible message names a folder of the server', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const linked = join(repos.dir, 'linked');
  const broken = join(repos.dir, 'broken');
  const orders = 'data/sales/orders';
  const customers = join(
    'data/sales/customers',
    readdirSync(join(repos.path('repos/basic'), 'data/sales/customers'))[0]!,
  );

  before(async () => {
    cpSync(repos.path('repos/basic'), linked, { recursive: true });
    cpSync(repos.path('repos/basic'), broken, { recursive: true });
    // links to files outside the repository: a ref and a data file
    cpSync(join(linked, 'refs/tags/v2'), join(repos.dir, 'outside-v2'));
    rmSync(join(linked, 'refs/tags/v2'));
    symlinkSync(join(repos.dir, 'outside-v2'), join(linked, 'refs/tags/v2'));
    cpSync(join(linked, customers), join(repos.dir, 'outside.parquet'));
    rmSync(join(linked, customers));
    symlinkSync(join(repos.dir, 'outside.parquet'), join(linked, customers));
    // a link to itself: Node's error names the absolute path it could not resolve
    rmSync(join(linked, 'refs/heads/dev'));
    symlinkSync(join(linked, 'refs/heads/dev'), join(linked, 'refs/heads/dev'));
    // data files gone
    rmSync(join(broken, orders), { recursive: true });
    gw = await startGateway([
      '--repo',
      `linked=${linked}`,
      '--repo',
      `broken=${broken}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  const errorOf = async (database: string, sql?: string): Promise<ErrorFields> => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
    try {
      await c.connect();
      if (sql) await c.query(sql);
    } catch (e) {
      return fields(e);
    } finally {
      await c.end().catch(() => undefined);
    }
    assert.fail(`${database} ${sql ?? ''} succeeded`);
  };

  test('a link out of the repository, a link loop and a data file that is gone are refused without an absolute path', async () => {
    const seen: ErrorFields[] = [
      await errorOf('linked@v2'),
      await errorOf('linked@dev'),
      await errorOf('linked@v1', 'select count(*) from sales.customers'),
      await errorOf('broken@v1', 'select count(*) from sales.orders'),
    ];
    // a data file that is gone refuses the statements reading its table (XX001), not the connection
    assert.deepEqual(
      seen.map((e) => e.code),
      ['58030', '58030', '58030', 'XX001'],
    );
    assert.match(
      seen[3]!.message,
      /^data file missing: data\/sales\/orders\/\S+ \(version \S+ of repository broken\)$/,
    );
    assert.match(seen[0]!.message, /^refusing refs\/tags\/v2: it is a link to a file outside the repository$/);
    assert.match(seen[1]!.message, /\brefs\/heads\/dev\b/, 'the path, relative to the repository root');
    for (const e of seen) {
      assert.ok(!JSON.stringify(e).includes(repos.dir), `names the server's folder: ${JSON.stringify(e)}`);
    }
  });
});

test('server folders in a text: below a repository root relative to it, the root and the cache named, longest root first', () => {
  const roots = [
    { path: '/srv/cache', as: '<server>' },
    { path: '/srv/repos/shop', as: '' },
    { path: '/srv/cache/duckdb-tmp', as: '<server>' },
  ];
  assert.equal(
    hideServerRoots("cannot read data/x in /srv/repos/shop: ELOOP, realpath '/srv/repos/shop/data/x'", roots),
    "cannot read data/x in the repository folder: ELOOP, realpath 'data/x'",
  );
  assert.equal(
    hideServerRoots('temp files in /srv/cache/duckdb-tmp/t1 and /srv/cache', roots),
    'temp files in <server>/t1 and <server>',
  );
  assert.equal(hideServerRoots('nothing here', roots), 'nothing here');
  assert.equal(
    hideServerRoots('/srv/repos/shopping/x', roots),
    '/srv/repos/shopping/x',
    'a sibling folder is not the root',
  );
});
