"""Regenerates src/pg/catalog/pg-proc-names.ts: how PostgreSQL 15's regproc and regprocedure output functions
print each of its built-in functions (pg_proc's OIDs below 16384), from a running PostgreSQL 15 with the default
search_path (see README.md; PGHOST, PGPORT, PGDATABASE override the socket dir /tmp/pg15, port 54399 and
database fdl). regprocout qualifies a name that names more than one function (`pg_catalog.int8`, `pg_catalog.sum`)
and quotes as quote_ident does (`pg_catalog."char"`): the server's own text is taken, not re-derived.
Rows ordered by OID, so a re-run over the same release writes the same file."""
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
rows = q("""select p.oid::int as oid, p.oid::regproc::text as regproc, p.oid::regprocedure::text as regprocedure
  from pg_proc p where p.oid < 16384 order by p.oid""")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'pg', 'catalog', 'pg-proc-names.ts')
with open(out, 'w') as f:
    f.write(f"""// GENERATED from a PostgreSQL {version} server's own catalog by test/fixtures-clients/gen-pg-proc-names.py
// (see test/fixtures-clients/README.md); do not edit by hand.

/** Every built-in function: oid, its regproc output (qualified when the name is overloaded), its regprocedure output. */
export const PG_PROC_NAMES: ReadonlyArray<readonly [number, string, string]> = [
""")
    for r in rows:
        f.write('  ' + json.dumps([r['oid'], r['regproc'], r['regprocedure']], ensure_ascii=False) + ',\n')
    f.write('];\n')
print(len(rows), 'functions of PostgreSQL', version, '->', os.path.normpath(out))
