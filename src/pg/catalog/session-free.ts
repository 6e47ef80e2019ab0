/**
 * Which catalog objects answer the same for every session reading the same attachment of a version as
 * the same user with the same settings: the condition for the result cache to answer a catalog
 * statement (analysis/determinism.ts), whose key holds exactly those (session/result-cache-policy.ts).
 * Read from the objects' own definitions, not listed by hand: a view or macro is session-bound when its
 * body reads a connection variable other than the user's name and the resolved search path, the clock,
 * a random source or DuckDB's live catalog, or uses an object that is. Tables are filled once (at
 * install, or per attached version, which the key names), so a table is never session-bound.
 */

/** A body reading a connection variable the result key does not hold: only the user (pg_user) and the search path it resolves (pg_search_schemas) are keyed. Read from the body as written: the variable's name is a literal. */
const UNKEYED_VARIABLE = /duckdb_variables|getvariable\('(?!pg_user'|pg_search_schemas')/i;

/** A body calling something the result key does not hold. Read from the body's code, its string literals blanked: quote_ident's list of keywords names current_timestamp, a word, not a call. */
const SESSION_BOUND_CODE = new RegExp(
  [
    // DuckDB's live catalog (a remote version's views are rebuilt per statement) and settings
    `\\bduckdb_\\w+\\s*\\(`,
    `(?<![.\\w])current_(?:setting|schemas?|user|role|query)\\s*\\(`,
    // the clock and random sources
    `\\b(?:now|random|setseed|gen_random_uuid|uuid|nextval|currval|today|get_current_time|get_current_timestamp|transaction_timestamp|statement_timestamp|clock_timestamp)\\s*\\(`,
    `\\b(?:current_timestamp|current_date|current_time|localtimestamp|localtime)\\b`,
  ].join('|'),
  'i',
);

/** The body with each string literal's content taken out ('' doubled inside a literal included). */
const withoutLiterals = (body: string): string => body.replace(/'(?:[^']|'')*'/g, "''");

const sessionBoundBody = (body: string): boolean =>
  UNKEYED_VARIABLE.test(body) || SESSION_BOUND_CODE.test(withoutLiterals(body));

const CREATED = /^CREATE (MACRO|VIEW|TABLE) (fdl_pg\.(\w+)\.(\w+))/;

/**
 * From the catalog's install statements: whether the object `schema.name` is one of them and not
 * session-bound, directly or through what it uses. An object the statements do not create is not.
 */
export function sessionFreeObjects(statements: readonly string[]): (schema: string, name: string) => boolean {
  const bound = sessionBound(statements);
  return (schema, name) => {
    const key = `${schema}.${name}`.toLowerCase();
    return bound.objects.has(key) && !bound.bound.has(key);
  };
}

function sessionBound(statements: readonly string[]): { objects: ReadonlySet<string>; bound: ReadonlySet<string> } {
  const bodies = new Map<string, { kind: string; body: string }>();
  for (const sql of statements) {
    const m = CREATED.exec(sql);
    if (!m) continue;
    const key = `${m[3]!}.${m[4]!}`.toLowerCase();
    // overloads and re-creations: every body of a name counts
    const prev = bodies.get(key);
    bodies.set(key, { kind: m[1]!, body: (prev ? prev.body + '\n' : '') + sql.slice(m[0].length) });
  }
  // what each object is used by; then everything that reaches a session-bound body is bound too
  const usedBy = new Map<string, string[]>();
  const bound = new Set<string>();
  const pending: string[] = [];
  for (const [key, o] of bodies) {
    if (o.kind === 'TABLE') continue;
    if (sessionBoundBody(o.body)) {
      bound.add(key);
      pending.push(key);
    }
    for (const ref of o.body.matchAll(/fdl_pg\.(\w+)\.(\w+)/g)) {
      const dep = `${ref[1]!}.${ref[2]!}`.toLowerCase();
      if (dep !== key) usedBy.set(dep, [...(usedBy.get(dep) ?? []), key]);
    }
  }
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    for (const user of usedBy.get(key) ?? []) {
      if (bound.has(user) || bodies.get(user)?.kind === 'TABLE') continue;
      bound.add(user);
      pending.push(user);
    }
  }
  return { objects: new Set(bodies.keys()), bound };
}
