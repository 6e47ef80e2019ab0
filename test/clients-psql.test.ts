/**
 * psql 15 backslash commands through the wire (each sends PostgreSQL catalog queries the gateway
 * rewrites), and pgcli (Debian package) driven in a tmux pane: it starts, loads its completions
 * from the catalog, completes a table and a column name, and runs the completed query.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { describeProbe, runProbe } from './support/probe.js';

describe('psql 15 and pgcli', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/views');

  before(async () => {
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `views=${repos.path('repos/views')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--config',
      config(),
    ]);
  });
  /** Trust for everyone; `viewer` reads only the views repository, `nobody` nothing. */
  function config(): string {
    const file = join(repos.dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ auth: 'trust', users: { viewer: { grants: { views: ['*'] } }, nobody: { grants: {} } } }),
    );
    return file;
  }
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  /** Run one backslash command with psql; it must succeed without an error or warning. */
  async function psql(db: string, command: string): Promise<string> {
    const r = await runProbe(
      'psql',
      [
        `host=${gw.host} port=${gw.port} dbname=${db} user=me connect_timeout=10`,
        '-X',
        '-P',
        'pager=off',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        command,
      ],
      { timeoutMs: 30_000 },
    );
    assert.equal(r.code, 0, `${command}: ${describeProbe(r)}`);
    assert.doesNotMatch(r.stderr, /ERROR|WARNING|FATAL/, `${command}: ${describeProbe(r)}`);
    return r.stdout + r.stderr; // psql prints "Did not find any relations." on stderr
  }

  /** A table row of psql's aligned output: cells separated by `|`, trimmed. */
  function rows(out: string): string[][] {
    return out
      .split('\n')
      .filter((l) => l.includes('|'))
      .map((l) => l.split('|').map((c) => c.trim()));
  }

  test("psql \\l \\dn \\dt \\dv \\d \\df \\du \\conninfo list the served repositories and the version's objects", async () => {
    const l = rows(await psql('basic', '\\l'));
    assert.deepEqual(
      l.filter((r) => r[0] === 'basic' || r[0] === 'views').map((r) => [r[0], r[2]]),
      [
        ['basic', 'UTF8'],
        ['views', 'UTF8'],
      ],
    );

    const dn = rows(await psql('basic', '\\dn')).map((r) => r[0]);
    // fdl: the gateway's own views (fdl.refs …), listed as any schema (pg/catalog/fdl-views.ts)
    assert.deepEqual(dn, ['Name', 'fdl', 'main', 'sales']);

    const dt = rows(await psql('basic', '\\dt sales.*'));
    assert.deepEqual(
      dt.slice(1).map((r) => [r[0], r[1], r[2]]),
      [
        ['sales', 'customers', 'table'],
        ['sales', 'orders', 'table'],
      ],
    );
    const dtDefault = rows(await psql('basic', '\\dt'))
      .slice(1)
      .map((r) => r[1]);
    assert.ok(dtDefault.includes('all_types'), `\\dt on the search path: ${dtDefault}`);

    assert.match(await psql('basic', '\\dv'), /Did not find any relations/);
    const dv = rows(await psql('views', '\\dv *.*')).filter((r) => r[0] !== 'pg_catalog' && r[0] !== 'Schema');
    assert.ok(
      dv.some((r) => r[0] === 'main' && r[1] === 'v_over' && r[2] === 'view'),
      `\\dv: ${JSON.stringify(dv)}`,
    );
    assert.ok(
      dv.some((r) => r[0] === 'reporting' && r[1] === 'v_join'),
      `\\dv: ${JSON.stringify(dv)}`,
    );

    const d = rows(await psql('views', '\\d'))
      .slice(1)
      .map((r) => `${r[1]}:${r[2]}`);
    assert.ok(d.includes('base:table') && d.includes('v_base:view'), `\\d: ${d}`);

    const df = await psql('views', '\\df');
    assert.match(df, /List of functions/);
    assert.ok(
      rows(df).some((r) => r[1] === 'double_it'),
      df,
    );
    assert.match(await psql('basic', '\\df'), /\(0 rows\)/);

    const dT = await psql('basic', '\\dT');
    assert.match(dT, /List of data types/, 'psql \\dT runs (scalar subqueries over the catalog views)');

    const du = rows(await psql('basic', '\\du'));
    assert.equal(du[0]?.[0], 'Role name');
    assert.ok(
      du.some((r) => r[0] === 'me'),
      JSON.stringify(du),
    );

    assert.match(
      await psql('basic', '\\conninfo'),
      new RegExp(`connected to database "basic" as user "me" on host "${gw.host}" at port "${gw.port}"`),
    );
  });

  test('psql -l without a database lists the repositories the user may read; postgres refuses data reads clearly', async () => {
    /** psql as a user who names no database (-l connects to postgres), or the one given. */
    const run = (user: string, args: string[]) =>
      runProbe('psql', ['-X', '-P', 'pager=off', '-v', 'VERBOSITY=verbose', ...args], {
        timeoutMs: 30_000,
        env: { PGHOST: gw.host, PGPORT: String(gw.port), PGUSER: user, PGCONNECT_TIMEOUT: '10' },
      });
    const listed = async (user: string) => {
      const r = await run(user, ['-l', '-A', '-t']);
      assert.equal(r.code, 0, describeProbe(r));
      return r.stdout
        .split('\n')
        .filter((l) => l.includes('|'))
        .map((l) => l.split('|')[0]);
    };
    assert.deepEqual(await listed('me'), ['basic', 'postgres', 'views']);
    assert.deepEqual(await listed('viewer'), ['postgres', 'views'], 'only what the grants name');
    const none = await run('nobody', ['-l']);
    assert.equal(none.code, 2, describeProbe(none));
    assert.match(none.stderr, /FATAL: {2}database "postgres" does not exist/);
    // template1, psql's second choice, answers the same; a ref on a listing database is refused.
    const t1 = await run('me', ['-d', 'template1', '-A', '-t', '-c', 'SELECT datname FROM pg_database ORDER BY 1']);
    assert.equal(t1.stdout, 'basic\ntemplate1\nviews\n', describeProbe(t1));
    const ref = await run('me', ['-d', 'postgres~v1', '-c', 'SELECT 1']);
    assert.match(ref.stderr, /FATAL: {2}database "postgres" has no refs/, describeProbe(ref));
    // No tables: a read says where they are; the catalog describes an empty database.
    const read = await run('me', ['-d', 'postgres', '-c', 'SELECT count(*) FROM sales.orders']);
    assert.equal(read.code, 1, describeProbe(read));
    assert.match(read.stderr, /ERROR: {2}42P01: relation "sales\.orders" does not exist/);
    assert.match(read.stderr, /HINT: {2}Connect to one of the databases \\l lists/);
    const refs = await run('me', ['-d', 'postgres', '-c', 'SELECT * FROM fdl.refs']);
    assert.match(refs.stderr, /ERROR: {2}42P01: fdl\.refs describes a repository/, describeProbe(refs));
    assert.match(await psql('postgres', '\\dt'), /Did not find any relations/);
    // The instance's connections serve a repository's sessions after a listing one as before.
    assert.match(await psql('basic', 'SELECT count(*) FROM sales.orders'), /\n\s+69\n/);
  });

  test('psql \\d TABLE and \\d+ TABLE show PostgreSQL column types and DuckLake comments', async () => {
    const d = await psql('basic', '\\d sales.orders');
    assert.match(d, /Table "sales\.orders"/);
    assert.deepEqual(
      rows(d)
        .slice(1)
        .map((r) => [r[0], r[1]]),
      [
        ['order_id', 'bigint'],
        ['customer_id', 'integer'],
        ['amount', 'numeric(12,2)'],
        ['qty', 'smallint'],
        ['ordered_at', 'timestamp without time zone'],
        ['status', 'text'],
      ],
    );
    const types = Object.fromEntries(
      rows(await psql('basic', '\\d main.all_types'))
        .slice(1)
        .map((r) => [r[0], r[1]]),
    );
    assert.deepEqual(
      [
        types.b,
        types.f32,
        types.f64,
        types.d18,
        types.bl,
        types.dt,
        types.tm,
        types.ttz,
        types.tstz,
        types.iv,
        types.u,
        types.j,
      ],
      [
        'boolean',
        'real',
        'double precision',
        'numeric(18,3)',
        'bytea',
        'date',
        'time without time zone',
        'time with time zone',
        'timestamp with time zone',
        'interval',
        'uuid',
        'json',
      ],
    );
    const dplus = rows(await psql('basic', '\\d+ sales.orders'));
    const header = dplus[0]!;
    const desc = header.indexOf('Description');
    assert.ok(desc > 0, JSON.stringify(header));
    assert.equal(dplus.find((r) => r[0] === 'amount')?.[desc], 'Gross amount (DuckLake column comment)');
    const dtplus = rows(await psql('basic', '\\dt+ sales.orders'));
    assert.equal(dtplus[1]?.[dtplus[0]!.indexOf('Description')], 'Orders (DuckLake table comment)');
  });

  test(
    'pgcli starts, completes a table and a column name from the catalog, and runs the query',
    { timeout: 90_000 },
    async () => {
      const which = await runProbe('sh', ['-c', 'command -v pgcli && command -v tmux'], { timeoutMs: 5_000 });
      assert.equal(which.code, 0, 'pgcli and tmux are needed (.ci/run installs both)');
      const home = mkdtempSync(join(tmpdir(), 'fdl-pgcli-'));
      const session = `fdl-pgcli-${process.pid}`;
      const tmux = (...args: string[]) => runProbe('tmux', args, { timeoutMs: 10_000 });
      const screen = async () => (await tmux('capture-pane', '-p', '-t', session)).stdout;
      /** Poll the pane (bounded) until it matches. */
      const waitFor = async (re: RegExp, what: string) => {
        const deadline = Date.now() + 20_000;
        let last = '';
        while (Date.now() < deadline) {
          last = await screen();
          if (re.test(last)) return last;
          await new Promise((r) => setTimeout(r, 250));
        }
        assert.fail(`pgcli: ${what} did not appear; screen:\n${last}`);
      };
      try {
        const started = await tmux(
          'new-session',
          '-d',
          '-s',
          session,
          '-x',
          '160',
          '-y',
          '40',
          `env HOME=${home} XDG_CONFIG_HOME=${home} TERM=xterm pgcli --less-chatty postgres://me@${gw.host}:${gw.port}/basic`,
        );
        assert.equal(started.code, 0, describeProbe(started));
        await waitFor(/me@[^>]*basic> ?\s*$/m, 'the prompt');
        // completions load in the background after the prompt: retype until the menu offers the table
        let offered = false;
        for (let attempt = 0; attempt < 8 && !offered; attempt++) {
          await tmux('send-keys', '-t', session, 'C-u', 'select * from sales.ord');
          const deadline = Date.now() + 2_500;
          while (Date.now() < deadline && !offered) {
            offered = /orders\s+table/.test(await screen());
            if (!offered) await new Promise((r) => setTimeout(r, 250));
          }
        }
        assert.ok(offered, `pgcli did not offer the table "orders":\n${await screen()}`);
        await tmux('send-keys', '-t', session, 'Tab');
        await waitFor(/from sales\.orders\b/, 'the completed table name');
        await tmux('send-keys', '-t', session, ' where cust');
        await waitFor(/customer_id\s+column/, 'the column completion "customer_id"');
        await tmux('send-keys', '-t', session, 'Tab', ' = 1', 'Enter');
        const out = await waitFor(/SELECT 3/, 'the query result');
        assert.match(out, /where customer_id = 1/);
        assert.match(out, /628\.59/);
        await tmux('send-keys', '-t', session, 'C-d');
      } finally {
        await tmux('kill-session', '-t', session);
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});
