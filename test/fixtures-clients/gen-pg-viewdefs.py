"""Regenerates src/pg/catalog/pg-viewdefs.ts: the definitions of PostgreSQL 15's pg_catalog views, as
pg_get_viewdef answers them (plain, as pg_views.definition shows them, and pretty, as psql's \\sv and
\\d+ ask for them), from a running PostgreSQL 15 (see README.md; PGHOST, PGPORT, PGDATABASE override
the socket dir /tmp/pg15, port 54399 and database fdl). Only the views PG_CATALOG_RELATIONS lists are
served, so every view of pg_catalog is taken; rows ordered by OID, so a re-run over the same release
writes the same file."""
import json, os, subprocess

HOST = os.environ.get('PGHOST', '/tmp/pg15')
PORT = os.environ.get('PGPORT', '54399')
DB = os.environ.get('PGDATABASE', 'fdl')


def q(sql):
    out = subprocess.run(['psql', '-X', '-h', HOST, '-p', PORT, '-U', 'postgres', '-d', DB, '-At', '-c',
                          f"select coalesce(json_agg(t), '[]') from ({sql}) t"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


version = q("select current_setting('server_version') as v")[0]['v'].split()[0]
rows = q("""select c.oid::int as oid, c.relname::text as relname, pg_get_viewdef(c.oid) as definition,
  pg_get_viewdef(c.oid, true) as pretty, c.reloptions from pg_class c where c.relnamespace = 11 and c.relkind = 'v' order by c.oid""")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'pg', 'catalog', 'pg-viewdefs.ts')
with open(out, 'w') as f:
    f.write(f"""// GENERATED from a PostgreSQL {version} server's own catalog by test/fixtures-clients/gen-pg-viewdefs.py
// (see test/fixtures-clients/README.md); do not edit by hand.

/** pg_catalog's views: oid, relname, pg_get_viewdef(oid) (pg_views.definition), pg_get_viewdef(oid, true) (psql's \\sv, \\d+), reloptions (\\sv prints them). */
export const PG_VIEW_DEFINITIONS: ReadonlyArray<readonly [number, string, string, string, readonly string[] | null]> = [
""")
    for r in rows:
        f.write('  ' + json.dumps([r['oid'], r['relname'], r['definition'], r['pretty'], r['reloptions']], ensure_ascii=False) + ',\n')
    f.write('];\n')
print(len(rows), 'views of PostgreSQL', version, '->', os.path.normpath(out))
