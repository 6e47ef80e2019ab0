"""Regenerates src/pg/catalog/pg-parameter-names.ts: every configuration parameter a PostgreSQL 15 server knows by
name, as a StartupMessage (or `options=-c name=value`) may name it, from a running PostgreSQL 15 (see README.md;
PGHOST, PGPORT, PGDATABASE override the socket dir /tmp/pg15, port 54399 and database fdl). pg_settings lists every
parameter but those flagged GUC_NO_SHOW_ALL; those are asked of the server one by one (current_setting(name, true)
answers for a name it knows), so only names the server itself confirms are written. Sorted, so a re-run over the
same release writes the same file."""
import json, os, subprocess

HOST = os.environ.get('PGHOST', '/tmp/pg15')
PORT = os.environ.get('PGPORT', '54399')
DB = os.environ.get('PGDATABASE', 'fdl')
# Parameters pg_settings hides (GUC_NO_SHOW_ALL in guc.c): kept only where the server confirms the name.
HIDDEN = ['is_superuser', 'role', 'seed', 'session_authorization']


def q(sql):
    out = subprocess.run(['psql', '-X', '-h', HOST, '-p', PORT, '-U', 'postgres', '-d', DB, '-At', '-c',
                          f"select coalesce(json_agg(t), '[]') from ({sql}) t"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


version = q("select current_setting('server_version') as v")[0]['v'].split()[0]
listed = [r['name'] for r in q("select name from pg_settings")]
hidden = [r['name'] for r in q(' union all '.join(
    f"select '{n}' as name where current_setting('{n}', true) is not null" for n in HIDDEN))]
names = sorted({n.lower() for n in listed + hidden})
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'pg', 'catalog', 'pg-parameter-names.ts')
with open(out, 'w') as f:
    f.write(f"""// GENERATED from a PostgreSQL {version} server by test/fixtures-clients/gen-pg-parameter-names.py
// (see test/fixtures-clients/README.md); do not edit by hand.

/** Every configuration parameter the server knows by name (lower case): pg_settings, and those it hides there. */
export const PG_PARAMETER_NAMES: ReadonlySet<string> = new Set([
""")
    for n in names:
        f.write('  ' + json.dumps(n) + ',\n')
    f.write(']);\n')
print(len(names), 'parameters of PostgreSQL', version, '->', os.path.normpath(out))
