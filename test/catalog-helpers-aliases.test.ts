/**
 * Catalog helper functions never depend on the caller's aliases (compat/hygiene.ts): each helper is
 * called over a catalog table under many aliases, also the ones the emulation's own bodies use
 * (t, r, rc, p, f …) and none (unqualified columns), and must answer what it answers under an alias
 * nothing uses; the type helpers are also compared with PostgreSQL 15. One psql run per server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { describeProbe, runProbe } from './support/probe.js';

// The aliases the emulation's macro bodies used (t, r, rc, p, f), common others, and none.
const ALIASES = ['t', 'r', 'rc', 'p', 'f', 'c', 'x', ''];
const REFERENCE = 'zz_ref';
const TYPES = '(16, 20, 23, 25, 1043, 1082, 1114, 1184, 1700, 1007, 1015)';

/** [helper call over alias A, FROM, WHERE]: `A.` is the alias' qualifier (empty for no alias). */
const HELPERS: [string, string, string][] = [
  ['format_type(A.oid, NULL)', 'pg_type', `A.oid IN ${TYPES}`],
  ['format_type(A.oid, 7)', 'pg_type', `A.oid IN ${TYPES}`],
  ['format_type(A.typelem, -1)', 'pg_type', `A.oid IN ${TYPES}`],
  ['A.oid::regtype::text', 'pg_type', `A.oid IN ${TYPES}`],
  ['pg_type_is_visible(A.oid)::text', 'pg_type', `A.oid IN ${TYPES}`],
  ['pg_get_userbyid(A.typowner)', 'pg_type', `A.oid IN ${TYPES}`],
  ['A.oid::regclass::text', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['pg_table_is_visible(A.oid)::text', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['obj_description(A.oid)', 'pg_class', "A.relkind IN ('r', 'v')"],
  ["obj_description(A.oid, 'pg_class')", 'pg_class', "A.relkind IN ('r', 'v')"],
  ['col_description(A.oid, 1)', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['pg_relation_size(A.oid)::text', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['pg_total_relation_size(A.oid)::text', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['pg_get_viewdef(A.oid)', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['to_regclass(A.relname)::text', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['quote_ident(A.relname)', 'pg_class', "A.relkind IN ('r', 'v')"],
  ['A.oid::regnamespace::text', 'pg_namespace', 'true'],
  ["obj_description(A.oid, 'pg_namespace')", 'pg_namespace', 'true'],
  [
    'current_setting(A.name)',
    'pg_settings',
    "A.name IN ('DateStyle', 'search_path', 'server_version_num', 'TimeZone', 'client_encoding')",
  ],
  ['A.oid::regproc::text', 'pg_proc', 'A.oid IN (SELECT min(oid) FROM pg_proc)'],
  ['pg_get_function_result(A.oid)', 'pg_proc', 'A.oid IN (SELECT min(oid) FROM pg_proc)'],
];

/** Helpers over the same rows, answered together (each statement costs a planning and a catalog scan). */
function groups(helpers: readonly [string, string, string][]): { calls: string[]; from: string; where: string }[] {
  const out: { calls: string[]; from: string; where: string }[] = [];
  for (const [call, from, where] of helpers) {
    const g = out.find((x) => x.from === from && x.where === where);
    if (g) g.calls.push(call);
    else out.push({ calls: [call], from, where });
  }
  return out;
}

const SEPARATOR = ' ;; ';

/** The helpers' answers over the rows under one alias, as one text value (helpers joined by SEPARATOR). */
function answer(g: { calls: string[]; from: string; where: string }, alias: string): string {
  const q = alias === '' ? '' : `${alias}.`;
  const key = g.from === 'pg_settings' ? `${q}name` : `${q}oid`;
  const sub = (s: string) => s.replaceAll('A.', q);
  return (
    // line breaks and tabs (PostgreSQL's own view definitions have them) spelled out: one answer a psql field
    `(SELECT ${g.calls.map((c) => `translate(coalesce(string_agg(coalesce(${sub(c)}, '<null>'), ' | ' ORDER BY ${key}), '<none>'), chr(10) || chr(9), '¶→')`).join(` || '${SEPARATOR}' || `)}` +
    ` FROM pg_catalog.${g.from} ${alias} WHERE ${sub(g.where)})`
  );
}

/** One statement per group of helpers, one column per alias. */
function statement(g: { calls: string[]; from: string; where: string }, aliases: readonly string[]): string {
  return `SELECT ${aliases.map((a) => answer(g, a)).join(', ')}`;
}

/** Each statement's one row, split into its columns. */
async function answers(conninfo: string, statements: string[]): Promise<string[][]> {
  const r = await runProbe(
    'psql',
    [conninfo, '-X', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', ...statements.flatMap((s) => ['-c', s])],
    { timeoutMs: 120_000 },
  );
  assert.equal(r.code, 0, describeProbe(r));
  const lines = r.stdout.split('\n').slice(0, statements.length);
  assert.equal(lines.length, statements.length, describeProbe(r));
  return lines.map((l) => l.split('\t'));
}

describe('catalog helpers under any alias', () => {
  let gw: RunningGateway;
  let pg: PgCluster;
  const repos = copyFixtures('repos/basic', 'repos/views');

  before(async () => {
    [gw, pg] = await Promise.all([
      startGateway([
        '--repo',
        `basic=${repos.path('repos/basic')}`,
        '--repo',
        `views=${repos.path('repos/views')}`,
        '--cache-dir',
        join(repos.dir, 'cache'),
      ]),
      startPgCluster({ settings: { TimeZone: 'UTC' } }),
    ]);
  });
  after(async () => {
    await Promise.all([gw?.stop(), pg?.stop()]);
    repos.cleanup();
  });

  test('every helper answers the same under every alias as under one nothing uses', async () => {
    const all = groups(HELPERS);
    const rows = await answers(
      `host=${gw.host} port=${gw.port} dbname=views user=me`,
      all.map((g) => statement(g, [REFERENCE, ...ALIASES])),
    );
    all.forEach((g, k) => {
      const [reference, ...others] = rows[k]!.map((v) => v.split(SEPARATOR));
      assert.equal(reference!.length, g.calls.length, `${g.from}: ${rows[k]}`);
      g.calls.forEach((call, h) => {
        assert.notEqual(reference![h], '<none>', `${call} over ${g.from}: no rows`);
        others.forEach((got, i) =>
          assert.equal(got[h], reference![h], `${call} over ${g.from} ${ALIASES[i] || '(no alias)'}`),
        );
      });
    });
  });

  test('the type helpers answer as PostgreSQL 15 under every alias', async () => {
    const typeHelpers = groups(
      HELPERS.filter(([call, from]) => from === 'pg_type' && !call.startsWith('pg_get_userbyid')),
    );
    const statements = typeHelpers.map((g) => statement(g, ALIASES));
    const [ours, theirs] = await Promise.all([
      answers(`host=${gw.host} port=${gw.port} dbname=basic user=me`, statements),
      answers(`host=${pg.host} port=${pg.port} dbname=postgres user=postgres`, statements),
    ]);
    assert.deepEqual(ours, theirs);
  });
});
