import subprocess, json
def q(sql):
    out = subprocess.run(['psql','-h','/tmp/pg15','-p','54399','-U','postgres','-d','fdl','-At','-c',f"select coalesce(json_agg(t),'[]') from ({sql}) t"],capture_output=True,text=True,check=True).stdout
    return json.loads(out)
types = q("""select t.oid::int, typname::text, typlen::int, typbyval, typtype::text, typcategory::text, typispreferred, typdelim::text,
  typelem::int, typarray::int, typinput::oid::int, typoutput::oid::int, typreceive::oid::int, typsend::oid::int,
  typmodin::oid::int, typmodout::oid::int, typanalyze::oid::int, typalign::text, typstorage::text, typcollation::int, typsubscript::oid::int,
  format_type(t.oid, null) as fmt
  from pg_type t where typnamespace = 11 and typrelid = 0
    and (typelem = 0 or exists (select 1 from pg_type e where e.oid = t.typelem and e.typrelid = 0)) order by t.oid""")
procs = q("""select p.oid::int, proname::text, pronargs::int, prorettype::int, array_to_string(proargtypes::oid[], ' ') as argtypes, provolatile::text, proisstrict, prosrc
  from pg_proc p where p.oid in (select unnest(array[typinput,typoutput,typreceive,typsend,typmodin,typmodout,typsubscript,typanalyze]::oid[]) from pg_type t where typnamespace=11 and typrelid=0 and (typelem = 0 or exists (select 1 from pg_type e where e.oid = t.typelem and e.typrelid = 0)))
  order by p.oid""")
ranges = q("select rngtypid::int, rngsubtype::int, rngmultitypid::int, rngcollation::int, rngsubopc::int, rngcanonical::oid::int, rngsubdiff::oid::int from pg_range order by 1")
settings = q("""select name, setting, unit, category, short_desc, context, vartype, min_val, max_val, enumvals::text as enumvals, boot_val from pg_settings order by name""")
kw = q("select word, catcode::text, barelabel, catdesc, baredesc from pg_get_keywords() order by word")
rels = q("""select c.oid::int, relname::text, relkind::text from pg_class c where relnamespace = 11 and relkind in ('r','v') order by 1""")
nsp = q("select oid::int, nspname::text from pg_namespace where nspname in ('pg_catalog','information_schema')")
def ts(name, rows, cols, comment):
    lines = [f"/** {comment} Columns: {', '.join(cols)}. */", f"export const {name}: ReadonlyArray<readonly unknown[]> = ["]
    for r in rows: lines.append('  ' + json.dumps([r[c] for c in cols], ensure_ascii=False) + ',')
    lines.append('];')
    return '\n'.join(lines)
hdr = """// GENERATED from a PostgreSQL 15.18 server's own catalog (see test/fixtures-clients/README.md); do not edit by hand.
// Built-in catalog rows that clients expect with their real OIDs; loaded into the compat database once.
/* eslint-disable */
"""
parts = [hdr]
parts.append(ts('PG_TYPES', types, list(types[0].keys()), 'Built-in pg_catalog types (typrelid = 0); regproc columns as function OIDs; fmt = format_type(oid, NULL).'))
parts.append(ts('PG_PROCS', procs, list(procs[0].keys()), 'The type I/O functions referenced by PG_TYPES (Npgsql joins pg_proc on typreceive).'))
parts.append(ts('PG_RANGES', ranges, list(ranges[0].keys()), 'Built-in range types.'))
parts.append(ts('PG_SETTINGS', settings, list(settings[0].keys()), 'pg_settings defaults of a stock server.'))
parts.append(ts('PG_KEYWORDS', kw, list(kw[0].keys()), 'pg_get_keywords().'))
parts.append(ts('PG_CATALOG_RELATIONS', rels, list(rels[0].keys()), 'OIDs of pg_catalog relations (for regclass of catalog names).'))
parts.append(ts('PG_SPECIAL_NAMESPACES', nsp, list(nsp[0].keys()), 'OIDs of the system namespaces.'))
open('/work/main/src/pg/catalog/pg-data.ts','w').write('\n\n'.join(parts)+'\n')
print(len(types), len(procs), len(ranges), len(settings), len(kw), len(rels), nsp)

# ---- relations whose columns (and, for a few, rows) we copy
STATIC = {
 'pg_am': 'true', 'pg_tablespace': 'true', 'pg_collation': "collname in ('default','C','POSIX','ucs_basic')",
 'pg_language': 'true', 'pg_extension': "extname = 'plpgsql'",
}
EMPTY = ['pg_index','pg_constraint','pg_enum','pg_matviews','pg_inherits','pg_attrdef','pg_depend','pg_shdepend','pg_policy',
 'pg_statistic_ext','pg_publication','pg_publication_namespace','pg_publication_rel','pg_trigger','pg_sequence','pg_rewrite',
 'pg_foreign_table','pg_foreign_server','pg_foreign_data_wrapper','pg_user_mapping','pg_event_trigger','pg_partitioned_table','pg_opclass',
 'pg_operator','pg_cast','pg_conversion','pg_locks','pg_shdescription','pg_auth_members','pg_seclabel','pg_init_privs','pg_default_acl',
 'pg_indexes','pg_sequences','pg_aggregate','pg_prepared_xacts','pg_largeobject_metadata','pg_opfamily','pg_amop','pg_amproc',
 'pg_stat_activity','pg_statio_user_tables','pg_transform','pg_ts_config','pg_ts_dict','pg_ts_parser','pg_ts_template',
 'pg_subscription','pg_replication_slots','pg_rules','pg_policies','pg_stats','pg_prepared_statements','pg_cursors','pg_available_extensions',
 'pg_timezone_names','pg_timezone_abbrevs']
# relations we build as views; only their column types are used (for overrides)
VIEWS = ['pg_namespace','pg_class','pg_attribute','pg_type','pg_proc','pg_description','pg_database','pg_roles','pg_user','pg_authid',
 'pg_settings','pg_range','pg_tables','pg_views','pg_stat_user_tables','pg_stat_all_tables']
def cols(rel):
    return q(f"""select attname::text as name, format_type(atttypid, null) as type, atttypid::int as typoid from pg_attribute
      where attrelid = 'pg_catalog.{rel}'::regclass and attnum > 0 and not attisdropped order by attnum""")
static = []
for rel in list(STATIC) + EMPTY:
    c = cols(rel)
    rows = []
    if rel in STATIC:
        sel = ', '.join(f'"{x["name"]}"::text' if x['type'] in ('aclitem[]','pg_node_tree') else f'"{x["name"]}"' + ('::int' if x['type'] in ('oid','regproc','xid') else '') for x in c)
        rows = [list(r.values()) for r in q(f"select {sel} from pg_catalog.{rel} where {STATIC[rel]}")]
    static.append({'name': rel, 'columns': [[x['name'], x['type']] for x in c], 'rows': rows})
viewcols = {rel: [[x['name'], x['type']] for x in cols(rel)] for rel in VIEWS}
allc = {}
for rel in list(STATIC) + EMPTY + VIEWS:
    for x in cols(rel): allc.setdefault(x['name'], set()).add(x['typoid'])
CAT = {18, 19, 21, 22, 24, 26, 28, 30, 194, 700, 1002, 1003, 1028, 1034}
over = {k: list(v)[0] for k, v in sorted(allc.items()) if len(v) == 1 and list(v)[0] in CAT}
with open('/work/main/src/pg/catalog/pg-data.ts','a') as f:
    f.write('\n/** Catalog relations emulated as tables: PostgreSQL columns (name, format_type) and rows (static ones). */\n')
    f.write('export const PG_STATIC_RELATIONS: ReadonlyArray<{ name: string; columns: ReadonlyArray<readonly [string, string]>; rows: ReadonlyArray<readonly unknown[]> }> = ' + '[\n' + ''.join('  ' + json.dumps(x, ensure_ascii=False) + ',\n' for x in static) + ']' + ';\n')
    f.write('\n/** Column lists of the catalog relations built as views (checked by tests against the views). */\n')
    f.write('export const PG_VIEW_COLUMNS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = ' + '{\n' + ''.join('  ' + json.dumps(k) + ': ' + json.dumps(v) + ',\n' for k, v in viewcols.items()) + '}' + ';\n')
    f.write('\n/** Column names that have one catalog-specific PostgreSQL type across the emulated catalog (name 19, "char" 18, oid 26...). */\n')
    f.write('export const PG_CATALOG_COLUMN_OIDS: Readonly<Record<string, number>> = ' + json.dumps(over) + ';\n')
print(len(static), len(over), {k:v for k,v in allc.items() if len(v)>1})
