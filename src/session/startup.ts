/**
 * What a StartupMessage asks for, read as values: which repository and ref the `database` names,
 * and the session settings its other parameters (and `options=-c x=y`) set. The connection applies
 * them; nothing here touches a socket.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { LISTING_DATABASES } from '../versions/listing.js';
import { PG_PARAMETER_NAMES } from '../pg/catalog/pg-parameter-names.js';

/** Startup parameters that are not session settings. */
const NOT_SETTINGS = new Set(['user', 'database', 'replication']);

/**
 * `NAME`, `NAME@REF`, `NAME~REF`, or `@REF`/`~REF` when exactly one repository is served (`only`).
 * `~` (never part of a repository or ref name) needs no escaping in URLs, where `@` ends the user
 * part; what a URL client left percent-encoded (`%40` for `@`, `%2F` for `/`) is read decoded: no
 * repository or ref name holds a `%`. `served`: the repositories this user may
 * see; any other name, served or not, gets the same answer. `engine`: whose DuckDB instance runs the
 * session (a listing database's is the first served repository's).
 */
export function startupTarget(
  requested: string,
  served: readonly string[],
  only: string | null,
): { repo: string; ref: string; engine: string } {
  const database = urlDecoded(requested);
  const at = refSeparator(database);
  let repo = at < 0 ? database : database.slice(0, at);
  const ref = at < 0 ? '' : database.slice(at + 1);
  if (repo === '') {
    // how many repositories are served is not the user's to know
    if (!only || !served.includes(only))
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `database "${database}" names no repository`,
        served.length ? `Served repositories: ${served.join(', ')}` : undefined,
      );
    repo = only;
  }
  // `postgres`/`template1` list the repositories (versions/listing.ts), on the first one's instance.
  if (!served.includes(repo) && LISTING_DATABASES.has(repo) && served.length > 0)
    return { repo, ref, engine: served[0]! };
  if (!served.includes(repo)) {
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `database "${repo}" does not exist`,
      served.length ? `Served repositories: ${served.join(', ')}` : undefined,
    );
  }
  return { repo, ref, engine: repo };
}

/** The database name as the session reports it (current_database()): `NAME@REF` whichever separator the client used. */
export function canonicalDatabase(requested: string): string {
  const database = urlDecoded(requested);
  const at = refSeparator(database);
  return at < 0 ? database : `${database.slice(0, at)}@${database.slice(at + 1)}`;
}

/** Percent-escapes of printable ASCII decoded (SQLAlchemy and pgjdbc pass a URL's database part as written). */
function urlDecoded(database: string): string {
  return database.replace(/%([2-7][0-9a-f])/gi, (escape, hex: string) => {
    const code = parseInt(hex, 16);
    return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : escape;
  });
}

/** Where the ref starts: the first `@` or `~`, -1 when none. */
function refSeparator(database: string): number {
  const at = database.indexOf('@');
  const tilde = database.indexOf('~');
  return at < 0 ? tilde : tilde < 0 ? at : Math.min(at, tilde);
}

/**
 * The settings a StartupMessage sets, in order: its parameters, with `options` expanded in place, names
 * in lower case. A name PostgreSQL 15 does not know refuses the login as PostgreSQL's does (FATAL 42704
 * `unrecognized configuration parameter`, the name as the client wrote it): `-c memory_limit=10GB` was
 * silently ignored. A name with a dot is a custom placeholder, accepted as PostgreSQL accepts it.
 */
export function startupSettings(params: ReadonlyMap<string, string>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of params) {
    if (NOT_SETTINGS.has(k)) continue;
    const given: [string, string][] = k === 'options' ? optionSettings(v) : [[k, v.replace(/^'(.*)'$/, '$1')]];
    for (const [name, value] of given) out.push([knownParameter(name), value]);
  }
  return out;
}

/** `name` in lower case when PostgreSQL 15 knows it (pg-parameter-names.ts, generated from its own server) or it is dotted. */
function knownParameter(name: string): string {
  const lower = name.toLowerCase();
  if (lower.includes('.') || PG_PARAMETER_NAMES.has(lower)) return lower;
  throw new SqlError(SQLSTATE.undefinedObject, `unrecognized configuration parameter "${name}"`);
}

/** `-c name=value --name=value` from the startup `options` parameter (backslash escapes spaces), names in lower case. */
export function parseOptions(options: string): [string, string][] {
  return optionSettings(options).map(([k, v]) => [k.toLowerCase(), v]);
}

/** The same, names as written (a `-` read as `_`, as PostgreSQL reads them). */
function optionSettings(options: string): [string, string][] {
  const words: string[] = [];
  let cur = '';
  for (let i = 0; i < options.length; i++) {
    const c = options[i]!;
    if (c === '\\' && i + 1 < options.length) cur += options[++i];
    else if (c === ' ' || c === '\t') {
      if (cur) words.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) words.push(cur);
  const out: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    let kv: string | undefined;
    if (words[i] === '-c') kv = words[++i];
    else if (words[i]!.startsWith('-c')) kv = words[i]!.slice(2);
    else if (words[i]!.startsWith('--')) kv = words[i]!.slice(2);
    if (!kv) continue;
    const eq = kv.indexOf('=');
    if (eq > 0) out.push([kv.slice(0, eq).replace(/-/g, '_'), kv.slice(eq + 1)]);
  }
  return out;
}
