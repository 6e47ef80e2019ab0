/**
 * Regenerates src/pg/catalog/pg-functions.ts: PostgreSQL 15's pg_proc, pg_operator, pg_aggregate and
 * pg_cast rows over the types the gateway serves, keeping only those whose probes
 * (../support/function-probes.ts) get PostgreSQL's answer through the gateway. Starts a private
 * PostgreSQL 15 cluster and a gateway over the basic fixture (build first):
 *
 *   npm run build && node dist/test/fixtures-clients/gen-pg-functions.js [--verbose]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixtures, ROOT, startGateway } from '../support/gateway.js';
import { startPgCluster } from '../support/pg-cluster.js';
import { RawPg } from '../support/raw-pg.js';
import {
  castProbes,
  keep,
  operatorProbes,
  outcome,
  procProbes,
  PROBED_TYPES,
  SHAPE_ONLY,
  type Outcome,
  type TypeNames,
} from '../support/function-probes.js';

const VERBOSE = process.argv.includes('--verbose');
/** Functions that reach server state, files, sessions or sleep: never probed, never listed. */
const NEVER =
  /^(pg_sleep.*|pg_read_.*|pg_ls_.*|pg_stat_.*|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_.*_wal.*|pg_.*backup.*|lo_.*|set_config|setval|nextval|currval|lastval|setseed|pg_notify|pg_advisory.*|pg_try_advisory.*|dblink.*|pg_.*replication.*|pg_promote|pg_log_backend_memory_contexts|pg_create_.*|pg_drop_.*|pg_import_system_collations|pg_switch_wal|pg_.*_xlog.*|pg_logical_.*|txid_.*|pg_xact_.*|pg_snapshot_.*|pg_visible_in_snapshot|pg_export_snapshot|query_to_xml.*|table_to_xml.*|cursor_to_xml.*|schema_to_xml.*|database_to_xml.*|pg_get_.*|has_.*_privilege|pg_has_role|pg_describe_object|pg_identify_object.*|pg_.*_size|pg_filenode_relation|pg_relation_filepath|pg_column_.*|pg_options_to_table|pg_tablespace_.*|pg_index.*|pg_collation_.*|pg_.*visible|obj_description|col_description|shobj_description|to_reg.*|pg_jit_available|inet_.*|pg_is_.*|pg_trigger_depth|pg_listening_channels|pg_current_logfile|pg_safe_snapshot_blocking_pids|pg_blocking_pids|pg_isolation_test_session_is_blocked|pg_control_.*|pg_partition_.*|pg_get_keywords|pg_event_trigger_.*|pg_last_.*|pg_wal_.*|pg_stat_file|pg_hba_file_rules|pg_ident_file_mappings|pg_show_.*|pg_timezone_.*|pg_cursor|pg_prepared_.*|pg_lock_status|pg_available_.*|pg_extension_.*|pg_config|pg_settings_get_flags|pg_database_collation_actual_version|pg_get_wal_.*|pg_split_walfile_name|pg_walfile_name.*)$/;

const SUPPORTED = [...PROBED_TYPES];
const inSupported = (col: string) => `${col} = ANY('{${SUPPORTED.join(',')}}'::oid[])`;

async function rows(c: RawPg, sql: string): Promise<Array<Record<string, unknown>>> {
  const o = await outcome(c, `SELECT coalesce(json_agg(t), '[]') FROM (${sql}) t`);
  if (o.error) throw new Error(`${o.error}\n${sql}`);
  return JSON.parse(o.rows![0]![0]!) as Array<Record<string, unknown>>;
}

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const pg = await startPgCluster({ settings: { TimeZone: 'UTC' } });
  const gw = await startGateway([
    '--repo',
    `basic=${repos.path('repos/basic')}`,
    '--cache-dir',
    join(repos.dir, 'cache'),
    '--result-cache-bytes',
    '0',
  ]);
  const connectGw = () =>
    RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2', params: { TimeZone: 'UTC' } });
  const p = await RawPg.connect({ port: pg.port, user: 'postgres', database: 'postgres', params: { TimeZone: 'UTC' } });
  let g = await connectGw();
  await p.simple("SET statement_timeout = '3s'");
  try {
    const names: TypeNames = new Map(
      (
        await rows(p, `SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE ${inSupported('oid')}`)
      ).map((r) => [r.oid as number, r.name as string]),
    );
    const procs = await rows(
      p,
      `SELECT p.oid::int AS oid, proname::text AS proname, prokind::text AS prokind, proretset, provolatile::text AS provolatile,
        proargtypes::oid[]::int[] AS argtypes, a.aggkind::text AS aggkind, a.aggnumdirectargs::int AS aggnumdirectargs
      FROM pg_proc p LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
      WHERE pronamespace = 11 AND prokind IN ('f', 'a', 'w') AND ${inSupported('prorettype')}
        AND proargtypes::oid[] <@ '{${SUPPORTED.join(',')}}'::oid[] AND coalesce(proallargtypes, '{}') <@ '{${SUPPORTED.join(',')}}'::oid[]
      ORDER BY p.oid`,
    );
    const gwCall = async (sql: string): Promise<Outcome> => {
      try {
        return await outcome(g, sql);
      } catch (e) {
        console.log(`gateway connection lost on: ${sql} (${String(e)})`);
        g = await connectGw();
        return { error: 'connection lost' };
      }
    };
    const probe = async (sqls: string[], volatile: boolean): Promise<boolean> => {
      const results: Array<{ pg: Outcome; gw: Outcome }> = [];
      for (const sql of sqls) {
        const po = await outcome(p, sql);
        const go = await gwCall(sql);
        results.push({ pg: po, gw: go });
      }
      const ok = keep(results, volatile);
      if (VERBOSE && !ok)
        console.log(
          `drop ${sqls[0]}\n  pg ${JSON.stringify(results[0]!.pg).slice(0, 160)}\n  gw ${JSON.stringify(results[0]!.gw).slice(0, 160)}`,
        );
      return ok;
    };
    const keptProcs = new Set<number>();
    for (const r of procs) {
      const name = String(r.proname);
      if (NEVER.test(name)) continue;
      const row = { ...r, argtypes: r.argtypes as number[] } as Parameters<typeof procProbes>[0];
      if (await probe(procProbes(row, names), r.provolatile === 'v' || SHAPE_ONLY.test(name))) keptProcs.add(row.oid);
    }
    console.log(`functions: ${keptProcs.size} of ${procs.length} candidates agree`);

    const ops = await rows(
      p,
      `SELECT o.oid::int AS oid, oprname::text AS oprname, oprkind::text AS oprkind, oprleft::int AS oprleft, oprright::int AS oprright
      FROM pg_operator o WHERE oprnamespace = 11 AND (oprleft = 0 OR ${inSupported('oprleft')}) AND ${inSupported('oprright')} AND ${inSupported('oprresult')}
      ORDER BY o.oid`,
    );
    const keptOps = new Set<number>();
    for (const o of ops) if (await probe(operatorProbes(o as never, names), false)) keptOps.add(o.oid as number);
    console.log(`operators: ${keptOps.size} of ${ops.length} candidates agree`);

    const casts = await rows(
      p,
      `SELECT oid::int AS oid, castsource::int AS castsource, casttarget::int AS casttarget FROM pg_cast
      WHERE ${inSupported('castsource')} AND ${inSupported('casttarget')} ORDER BY oid`,
    );
    const keptCasts = new Set<number>();
    for (const c of casts) if (await probe(castProbes(c as never, names), false)) keptCasts.add(c.oid as number);
    console.log(`casts: ${keptCasts.size} of ${casts.length} candidates agree`);

    const list = (s: Set<number>) => `'{${[...s].join(',') || '0'}}'::oid[]`;
    // The rows as the catalog holds them: reg* columns as OIDs, arrays in PostgreSQL's text form.
    const procRows = await rows(
      p,
      `SELECT p.oid::int, proname::text, prolang::int, procost::float8, prorows::float8, provariadic::int, prokind::text,
        prosecdef, proleakproof, proisstrict, proretset, provolatile::text, proparallel::text, pronargs::int, pronargdefaults::int, prorettype::int,
        array_to_string(proargtypes::oid[], ' ') AS proargtypes, proallargtypes::text, proargmodes::text, proargnames::text, prosrc,
        pg_get_function_arguments(p.oid) AS args, pg_get_function_identity_arguments(p.oid) AS identity_args, pg_get_function_result(p.oid) AS result,
        obj_description(p.oid, 'pg_proc') AS description
      FROM pg_proc p WHERE p.oid = ANY(${list(keptProcs)}) ORDER BY p.oid`,
    );
    const opRows = await rows(
      p,
      `SELECT o.oid::int, oprname::text, oprkind::text, oprcanmerge, oprcanhash, oprleft::int, oprright::int, oprresult::int,
        oprcom::int, oprnegate::int, oprcode::oid::int, oprrest::oid::int, oprjoin::oid::int, obj_description(o.oid, 'pg_operator') AS description
      FROM pg_operator o WHERE o.oid = ANY(${list(keptOps)}) ORDER BY o.oid`,
    );
    const aggRows = await rows(
      p,
      `SELECT aggfnoid::oid::int, aggkind::text, aggnumdirectargs::int, aggtransfn::oid::int, aggfinalfn::oid::int, aggcombinefn::oid::int,
        aggserialfn::oid::int, aggdeserialfn::oid::int, aggmtransfn::oid::int, aggminvtransfn::oid::int, aggmfinalfn::oid::int, aggfinalextra, aggmfinalextra,
        aggfinalmodify::text, aggmfinalmodify::text, aggsortop::int, aggtranstype::int, aggtransspace, aggmtranstype::int, aggmtransspace, agginitval, aggminitval
      FROM pg_aggregate WHERE aggfnoid::oid = ANY(${list(keptProcs)}) ORDER BY 1`,
    );
    const castRows = await rows(
      p,
      `SELECT oid::int, castsource::int, casttarget::int, castfunc::int, castcontext::text, castmethod::text
      FROM pg_cast WHERE oid = ANY(${list(keptCasts)}) ORDER BY oid`,
    );
    const ts = (name: string, comment: string, rs: Array<Record<string, unknown>>) =>
      `/** ${comment} Columns: ${Object.keys(rs[0] ?? {}).join(', ')}. */\nexport const ${name}: ReadonlyArray<readonly unknown[]> = [\n${rs.map((r) => `  ${JSON.stringify(Object.values(r))},`).join('\n')}\n];\n`;
    const out = [
      '// GENERATED by test/fixtures-clients/gen-pg-functions.ts from a PostgreSQL 15 server and probes through the gateway; do not edit by hand.',
      "// Only rows whose probes (test/support/function-probes.ts) got PostgreSQL's answer through the gateway are listed.",
      '/* eslint-disable */',
      '',
      ts(
        'PG_FUNCTIONS',
        'pg_proc rows (pg_catalog functions, aggregates and window functions); args/identity_args/result as pg_get_function_* print them.',
        procRows,
      ),
      ts('PG_OPERATORS', 'pg_operator rows; oprcode/oprrest/oprjoin as function OIDs.', opRows),
      ts('PG_AGGREGATES', 'pg_aggregate rows of the listed aggregates; regproc columns as function OIDs.', aggRows),
      ts('PG_CASTS', 'pg_cast rows between served types whose casts agree.', castRows),
    ].join('\n');
    writeFileSync(join(ROOT, 'src', 'pg', 'catalog', 'pg-functions.ts'), out);
    console.log(
      `wrote src/pg/catalog/pg-functions.ts: ${procRows.length} functions, ${opRows.length} operators, ${aggRows.length} aggregates, ${castRows.length} casts`,
    );
  } finally {
    await p.close();
    await g.close().catch(() => undefined);
    await gw.stop();
    await pg.stop();
    repos.cleanup();
  }
}

await main();
