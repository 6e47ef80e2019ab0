/**
 * A SET statement read by PostgreSQL's own grammar (pg/pg-parse.ts): what PostgreSQL takes for its
 * name, its values and its end. A pattern of ours had read `SET application_name = 'x' garbage` as
 * an empty value and answered SET, where PostgreSQL answers 42601; the grammar also knows its other
 * spellings (`SET NAMES`, `SET SCHEMA`, `SET TIME ZONE LOCAL`, `SET SESSION AUTHORIZATION`).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { intervalZone } from '../pg/fixed-zones.js';
import { parsePg, pgSyntaxError } from '../pg/pg-parse.js';
import { foldIdentifier } from './identifier.js';
import type { Statement } from './statement.js';

type Node = Record<string, any>;

/** One value as PostgreSQL flattens it for a parameter (its text; numbers as written). */
function flatValue(arg: Node): string | null {
  const c = arg['A_Const'] as Node | undefined;
  if (!c) return null;
  if (c['sval']) return String(c['sval'].sval ?? '');
  if (c['ival']) return String(c['ival'].ival ?? 0);
  if (c['fval']) return String(c['fval'].fval);
  if (c['boolval']) return c['boolval'].boolval ? 'true' : 'false';
  return null;
}

const refused = (sqlstate: string, message: string, hint?: string): Statement => ({
  kind: 'refused',
  sqlstate,
  message,
  ...(hint ? { hint } : {}),
});

/** The isolation level a SET TRANSACTION's items name, as PostgreSQL shows it. */
function isolationOf(items: Node[]): string | null {
  for (const item of items) {
    const d = item['DefElem'] as Node | undefined;
    if (d?.['defname'] === 'transaction_isolation') return flatValue(d['arg'] ?? {});
  }
  return null;
}

/** `s` is one statement that starts with SET (DuckDB's SET GLOBAL and SET VARIABLE are the caller's). */
export function classifySet(s: string): Statement {
  const stmt = parsePg(s)?.stmts?.[0]?.stmt?.['VariableSetStmt'] as Node | undefined;
  if (!stmt) {
    const { message, quote } = pgSyntaxError(s);
    // The grammar refuses `SET CATALOG` itself, with its own words.
    const sqlstate = /cannot be changed/.test(message) ? SQLSTATE.featureNotSupported : SQLSTATE.syntaxError;
    return refused(sqlstate, message, quote);
  }
  const name = foldIdentifier(String(stmt['name'] ?? ''));
  const local = stmt['is_local'] === true;
  const args = (stmt['args'] ?? []) as Node[];
  switch (stmt['kind']) {
    case 'VAR_SET_DEFAULT':
    case 'VAR_RESET': // SET SESSION AUTHORIZATION DEFAULT
      return { kind: 'set', name, value: null, local };
    case 'VAR_SET_CURRENT':
      return refused(SQLSTATE.featureNotSupported, `SET ${name} FROM CURRENT is not supported by fdl-gateway`);
    case 'VAR_SET_MULTI':
      if (name === 'transaction snapshot')
        return { kind: 'setTransaction', session: false, isolation: null, snapshot: flatValue(args[0] ?? {}) ?? '' };
      return { kind: 'setTransaction', session: name === 'session characteristics', isolation: isolationOf(args) };
    case 'VAR_SET_VALUE':
      break;
    default:
      return refused(SQLSTATE.syntaxError, 'syntax error in SET');
  }
  // An interval stands for the zone of a fixed offset PostgreSQL shows as `<+05:30>-05:30`.
  const cast = name === 'timezone' && args.length === 1 ? (args[0]!['TypeCast'] as Node | undefined) : undefined;
  if (cast) {
    const text = flatValue(cast['arg'] ?? {});
    const type = (cast['typeName']?.['names'] ?? []).map((n: Node) => n['String']?.['sval']).join('.');
    if (text === null || !/^(pg_catalog\.)?interval$/.test(type))
      return refused(SQLSTATE.syntaxError, `syntax error in SET ${name}`);
    const mask = cast['typeName']?.['typmods']?.[0]?.['A_Const']?.['ival']?.['ival'] as number | undefined;
    try {
      return { kind: 'set', name, value: intervalZone(text, mask), local };
    } catch (e) {
      if (e instanceof SqlError) return refused(e.sqlstate, e.message, e.hint ?? e.detail);
      throw e;
    }
  }
  const values = args.map(flatValue);
  if (values.some((v) => v === null)) return refused(SQLSTATE.syntaxError, `syntax error in SET ${name}`);
  return { kind: 'set', name, value: values.join(', '), local };
}
