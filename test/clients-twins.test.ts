/**
 * Clients as their new users meet them, each run against PostgreSQL 15 (the fixture's sales schema
 * copied into it) and against the gateway, outputs compared line by line: Python probes print one
 * `<check>: <result>` line per call (test/clients/twins_*.py; psycopg 3 named cursors, SQLAlchemy 2
 * over psycopg 3, asyncpg), and a Java probe does the same with pgjdbc (test/clients/JdbcTwins.java).
 * An error prints as its SQLSTATE, so a refusal on one side only is a difference too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, serveBasic, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import { copySalesSchema } from './support/sales-mirror.js';
import { javaClasses, PGJDBC_JAR } from './support/jdbc.js';
import { describeProbe, runProbe, type ProbeResult } from './support/probe.js';
import { venvPython } from './support/python-venv.js';

const PROBES = join(ROOT, 'test', 'clients');

describe('client twins: the same calls against PostgreSQL 15 and the gateway', { concurrency: 4 }, () => {
  let pg: PgCluster;
  let gw: RunningGateway;
  let compiled: Promise<string>;

  before(
    async () => {
      // javac takes seconds: it compiles while the servers start (or another test file has compiled).
      compiled = javaClasses();
      compiled.catch(() => undefined); // the pgjdbc test reports a failure
      [pg, gw] = await Promise.all([startPgCluster({ settings: { TimeZone: 'UTC' } }), serveBasic()]);
      const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
      try {
        await copySalesSchema(pg, c);
        // Table comments too (the Inspector's get_table_comment reads them).
        const comments = await c.simple(
          `select c.relname, obj_description(c.oid, 'pg_class') from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'sales' and c.relkind = 'r'`,
        );
        assert.equal(comments.error, undefined, comments.error?.message);
        for (const d of comments.dataRows) {
          const [table, comment] = splitDataRow(d);
          if (comment !== null)
            pg.psql(`COMMENT ON TABLE sales.${table!.toString()} IS '${comment.toString().replace(/'/g, "''")}'`);
        }
      } finally {
        await c.close();
      }
    },
    { timeout: 180_000 },
  );
  after(
    async () => {
      await gw?.stop();
      await pg?.stop();
    },
    { timeout: 30_000 },
  );

  const targets = () => [
    { name: 'PostgreSQL 15', host: '127.0.0.1', port: pg.port, db: 'postgres', user: 'postgres' },
    { name: 'gateway', host: gw.host, port: gw.port, db: 'basic@v2', user: 'me' },
  ];

  /** Run a probe against both, in parallel; the gateway's lines must be PostgreSQL's, every expected check among them. */
  async function twins(cmd: string, args: string[], checks: string[]): Promise<void> {
    const [expected, actual] = await Promise.all(
      targets().map(async (t) => {
        const env = {
          FDL_HOST: t.host,
          FDL_PORT: String(t.port),
          FDL_DB: t.db,
          FDL_USER: t.user,
          PGTZ: 'UTC',
          TZ: 'UTC',
        };
        const r = await runProbe(cmd, args, { cwd: PROBES, env, timeoutMs: 90_000 });
        assert.equal(r.code, 0, `${t.name}: ${describeProbe(r)}`);
        return r;
      }),
    );
    const lines = (r: ProbeResult) => r.stdout.split('\n').filter((l) => l !== '');
    const pgLines = lines(expected!);
    for (const c of checks)
      assert.ok(
        pgLines.some((l) => l.startsWith(`${c}: `)),
        `PostgreSQL 15 printed no "${c}"\n${describeProbe(expected!)}`,
      );
    const gwLines = lines(actual!);
    for (let i = 0; i < Math.max(pgLines.length, gwLines.length); i++) {
      assert.equal(gwLines[i], pgLines[i], `line ${i + 1} differs\n--- gateway stderr\n${actual!.stderr.slice(-3000)}`);
    }
  }

  test('psycopg 3 named cursors (itersize, scroll, the default cursor scrolled back, NO SCROLL, WITH HOLD, binary, parameters) and SQLAlchemy 2 stream_results', async () => {
    await twins(
      venvPython(),
      ['twins_cursors.py'],
      [
        'named cursor, itersize 7, parameter',
        'named cursor, fetchone/fetchmany/fetchall, two parameters',
        'scrollable cursor: relative and absolute, back and forth',
        "default named cursor scrolled back (scroll(0, 'absolute'), scroll(-1))",
        'NO SCROLL cursor scrolled back',
        'NO SCROLL cursor scrolled forward',
        'binary named cursor',
        'WITH HOLD cursor read after COMMIT',
        'WITH HOLD cursor gone after ROLLBACK',
        'WITH HOLD cursors across savepoints, COMMIT and ROLLBACK',
        'two named cursors read in turn',
        'named cursor over a failing query',
        "named cursor, parameters that are to_char's format and round's places",
        "SQL PREPARE/EXECUTE with to_char's format and round's places",
        'SQLAlchemy 2 stream_results over psycopg 3',
        'SQLAlchemy 2 yield_per partitions',
      ],
    );
  });

  test('SQLAlchemy 2 over psycopg 3: every Inspector method, MetaData.reflect(views=True), Table(autoload_with), pandas read_sql_table', async () => {
    await twins(
      venvPython(),
      ['twins_sqlalchemy2.py'],
      [
        'get_schema_names has sales',
        'get_table_names',
        'get_view_names',
        'get_materialized_view_names',
        'get_sequence_names',
        'get_temp_table_names',
        'get_temp_view_names',
        'has_schema',
        'has_table',
        'has_sequence',
        'has_index',
        'get_columns orders',
        'get_columns customers',
        'get_pk_constraint',
        'get_foreign_keys',
        'get_indexes',
        'get_unique_constraints',
        'get_check_constraints',
        'get_table_comment',
        'get_table_options',
        'get_multi_columns',
        'get_multi_pk_constraint',
        'get_multi_indexes',
        'get_sorted_table_and_fkc_names',
        'get_enums',
        'get_domains',
        'get_multi_foreign_keys',
        'get_multi_unique_constraints',
        'get_multi_check_constraints',
        'get_multi_table_comment',
        'get_multi_table_options',
        'get_foreign_table_names',
        'has_type',
        'get_table_oid is an OID',
        'get_view_definition of a table',
        'get_view_definition of no relation',
        'reflect_table',
        'sort_tables_on_foreign_key_dependency',
        'clear_cache',
        'MetaData.reflect(views=True)',
        'Table(autoload_with) and a query over it',
        'pandas read_sql_table',
      ],
    );
  });

  test('psycopg 3 and SQLAlchemy 2 binding constants on the server: to_char format, round places, to_date format, lag/lead offsets as parameters, numeric (Decimal) parameters in arithmetic (planned with their values at Bind)', async () => {
    await twins(
      venvPython(),
      ['twins_server_binding.py'],
      [
        'to_char with a parameter format',
        'to_char, two formats in turn',
        'round of a numeric cast with parameter places',
        'round, two parameters and a filter parameter',
        'to_date with parameters',
        'lag and lead with parameter offsets and defaults',
        'prepared (named) statement, described, run with several values',
        'result description',
        'round of arithmetic on a numeric parameter',
        'a numeric parameter beside an aggregate and a column',
        'a numeric parameter divided, and its result type',
        'a prepared statement with numeric parameters run with several values',
        'round of float and int parameters',
        'round of a Decimal parameter, with and without places',
        'an int2 parameter times an integer constant',
        'two int2 parameters multiplied (smallint out of range)',
        'numeric parameters past 18 digits',
        'SQLAlchemy 2: to_char grouped by month',
        'SQLAlchemy 2: round(cast(avg(amount), Numeric), 2)',
        'SQLAlchemy 2: func.lag(qty, 1, 0)',
      ],
    );
  });

  test('session 52: a psycopg 3 tuple after IN is 42601, timedelta parameters beside an interval in other fields, asyncpg decodes name and "char"', async () => {
    await twins(
      venvPython(),
      ['twins_session52.py'],
      [
        'psycopg 3: a tuple after IN',
        'psycopg 3: a list with = any',
        "psycopg 3: timedelta parameters beside interval '1 month'",
        'asyncpg rows',
      ],
    );
  });

  test('asyncpg cursors: fetch, forward (MOVE on a protocol portal), fetchrow, iteration with prefetch; a parameter used twice; "char" catalog columns and type introspection; arrays on a new connection (asyncpg 0.31)', async () => {
    await twins(
      venvPython(),
      ['twins_asyncpg.py'],
      [
        'cursor fetch, forward, fetchrow',
        'cursor iteration with prefetch 7',
        'cursor over a failing cast',
        'connection usable afterwards',
        'one parameter beside two numeric types',
        'one parameter beside smallint and numeric',
        'round places beside binary date/time parameters',
        '"char" catalog columns',
        'type introspection for a codec',
        'array parameter and result on a new connection',
      ],
    );
  });

  test('pgjdbc: setDate / setTimestamp on date columns, getFunctionColumns / getFunctions / getProcedures / getSQLKeywords, fetch … in after declare … with hold, setFetchSize', async () => {
    const classes = await compiled;
    // The probe takes its target as arguments: one run per server, compared as the Python probes are.
    await twins(
      'sh',
      ['-c', `exec java -cp '${classes}:${PGJDBC_JAR}' JdbcTwins "$FDL_HOST" "$FDL_PORT" "$FDL_DB" "$FDL_USER"`],
      [
        'setDate on a date column',
        'setDate with a Calendar, equality',
        'setTimestamp on a date column',
        'setObject(LocalDate) on a date column',
        'getFunctionColumns(split_part)',
        'getFunctions(abs)',
        'getProcedures(concat_ws)',
        'getSQLKeywords',
        'declare with hold, then fetch in',
        'setFetchSize in a transaction',
        'simple mode: setDate on a timestamp column',
        'simple mode: setDate in BETWEEN and IN on a timestamp column',
        'simple mode: setDate on a date column',
        'simple mode: setTimestamp on a date column',
        'simple mode: setTimestamp on a timestamp column',
      ],
    );
  });

  test('pgjdbc in a JVM whose zone is a fixed offset (GMT+05:30, GMT-09:30, GMT+03): connects and reads timestamptz as from PostgreSQL', async () => {
    const classes = await compiled;
    for (const zone of ['GMT+05:30', 'GMT-09:30', 'GMT+03:00']) {
      await twins(
        'sh',
        [
          '-c',
          `exec java -Duser.timezone=${zone} -cp '${classes}:${PGJDBC_JAR}' JdbcZone "$FDL_HOST" "$FDL_PORT" "$FDL_DB" "$FDL_USER"`,
        ],
        [
          'connect, SHOW TimeZone',
          'timestamptz constants',
          'timestamptz of a table',
          'setTimestamp parameter',
          'setObject(OffsetDateTime) parameter',
          'a literal without an offset, and its date',
          'prepared run 5',
        ],
      );
    }
  });
});
