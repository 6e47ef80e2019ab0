/** Parse-tree shapes and builders shared by the rewrite's modules (rewrite-*.ts). */
import { SqlError, SQLSTATE } from '../errors.js';
import { COMPAT_DB } from './catalog/names.js';
import type { RelationTypes, Scope } from './operand-types.js';

export type Node = Record<string, any>;
export interface Ctx {
  changed: boolean;
  /** Databases named in front of catalog relations the emulation serves (`db.pg_catalog.pg_class`): db → the name written. */
  catalogsNamed: Map<string, string>;
  ctes: Set<string>;
  /** Parameter number → PostgreSQL OID, for parameters cast to a type DuckDB spells differently. */
  params: Map<number, number>;
  /** The statement names a system column (tableoid, xmin, ctid…). */
  systemColumns: boolean;
  /** The text spells `float`, which DuckDB reads as FLOAT4 where PostgreSQL means float8. */
  floatSpelled: boolean;
  /** The statement has TABLESAMPLE (its argument is a percentage in PostgreSQL). */
  tableSample?: boolean;
  /** Calls that are an outermost select list's items (pg-shown-calls.ts `shownItems`). */
  shown?: Set<Node>; // (a shown call the rewrite respells as another node adds that node)
  /** The statement reads an emulated pg_catalog relation (its regproc columns are shown as names: regproc-columns.ts). */
  readsCatalog?: boolean;
  /** The outermost SELECTs' bodies (not set operations): their select lists are what the client is sent. */
  outermost?: ReadonlySet<Node>;
  /** The FROM items (aliases, else table names) a whole-row reference can name at this point of the walk (pg-rows.ts). */
  rowScope?: ReadonlySet<string>;
  /** FROM aliases that name a JSON set-returning function's one column (json-sets.ts): alias → column. */
  jsonColumns?: ReadonlyMap<string, string>;
  /** Whether the SELECT being walked sorts or deduplicates its rows (a struct sent as text would sort by its fields). */
  ordered?: boolean;
  /** Row `IN (SELECT …)` sublinks that are conjuncts of a WHERE or HAVING: NULL and false alike drop the row (pg-rows.ts). */
  filterSubLinks?: Set<Node>;
  /**
   * Inside a subquery expression or a compat macro's arguments (whose bodies hold subqueries): DuckDB
   * cannot pick a typed macro overload for a correlated value there, so a value's text is judged by its
   * type name at run time (pg-text.ts).
   */
  untypedText?: number;
  /** The statement's CTEs by name (inner-names.ts: a CTE read in FROM naming two columns alike). */
  cteBodies?: ReadonlyMap<string, Node>;
  /** The version's tables as the statement's names reach them (operand-types.ts); absent: no column's type is known. */
  relationTypes?: RelationTypes;
  /** The FROM items a column reference can name at this point of the walk, with their columns' types. */
  columnScope?: Scope;
  /** A column's type was asked for: the rewrite holds for its relation types only (rewrite.ts memoizes it so). */
  operandTypes?: boolean;
}

export const PGCAT = 'pgcat';
export const INFOSCHEMA = 'infoschema';
export const REG_TYPES = new Set(['regclass', 'regtype', 'regproc', 'regprocedure', 'regnamespace', 'regrole']);

/** Whether a node is a cast to a reg* type (`'int4'::regtype`, `oid::regclass`), not an array of them. */
export function isRegCast(n: Node | undefined): boolean {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return !!tn && !tn.arrayBounds?.length && REG_TYPES.has(names(tn.names).slice(-1)[0] ?? '');
}
/** `to_regclass(x)` and relatives: the reg* type each returns (a reg* type's OID, shown by name in a select list). */
export const TO_REG_CALL = /^to_(reg(?:class|type|namespace|role))$/;
/** Names PostgreSQL takes as an alias that DuckDB's grammar does not (pg_dump writes `pg_attribute at`): renamed. */
export const DUCKDB_RESERVED_ALIASES: ReadonlySet<unknown> = new Set(['at', 'by', 'show']);

export const str = (sval: string): Node => ({ String: { sval } });
export const names = (list: Node[] | undefined): string[] => (list ?? []).map((n) => String(n?.String?.sval ?? ''));
export const call = (name: string[], args: Node[]): Node => ({
  FuncCall: { funcname: name.map(str), args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
export const compat = (fn: string, args: Node[]): Node => call([COMPAT_DB, PGCAT, fn], args);
export const strConst = (s: string): Node => ({ A_Const: { sval: { sval: s } } });
export const not = (n: Node): Node => ({ BoolExpr: { boolop: 'NOT_EXPR', args: [n] } });

/** PostgreSQL array text '{a,"b c",NULL}' → element strings (null for NULL); undefined if not one. */
export function parseArrayText(s: string): Array<string | null> | undefined {
  if (!/^\{.*\}$/s.test(s)) return undefined;
  const inner = s.slice(1, -1);
  if (inner.trim() === '') return [];
  const out: Array<string | null> = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*?))\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < inner.length && (m = re.exec(inner))) {
    // an unquoted brace is another dimension (or PostgreSQL's malformed literal): never read as an element's text
    if (m[1] === undefined && /[{}]/.test(m[2]!)) throw arrayDimensions(s);
    if (m[1] !== undefined) out.push(m[1].replace(/\\(.)/g, '$1'));
    else out.push(m[2]!.toUpperCase() === 'NULL' ? null : m[2]!);
    if (m[0] === '') break;
  }
  return out;
}

/** `'{{a,b},{c,d}}'` read as an array: its four texts were `{a`, `b}`, … (PostgreSQL's two-dimensional array). */
function arrayDimensions(s: string): SqlError {
  return /^\{\s*\{/.test(s)
    ? new SqlError(
        SQLSTATE.featureNotSupported,
        'multidimensional arrays are not supported by fdl-gateway',
        undefined,
        "Write one dimension ('{a,b,c,d}'), or an array of arrays in DuckDB's spelling ([['a','b'],['c','d']]).",
      )
    : new SqlError(SQLSTATE.invalidTextRepresentation, 'malformed array literal', 'Unexpected "{" or "}" character.');
}

/** `struct_pack(fdl_pg_<what> := x)`: x sent as the PostgreSQL type `what` names (pg/oids.ts `typedWrapper`); outermost select lists only. */
export const typedAs = (what: string, x: Node): Node => ({
  FuncCall: {
    funcname: [str('struct_pack')],
    args: [{ NamedArgExpr: { arg: x, name: `fdl_pg_${what}`, argnumber: -1 } }],
    funcformat: 'COERCE_EXPLICIT_CALL',
  },
});

/** Unqualified column names read under `n` (not inside a nested SELECT), in the order a walk meets them. */
export function bareColumnNames(n: unknown): Set<string> {
  const into = new Set<string>();
  const stack: unknown[] = [n];
  while (stack.length > 0) {
    const o = stack.pop();
    if (Array.isArray(o)) stack.push(...o);
    else if (o && typeof o === 'object') {
      const node = o as Node;
      if (node.SelectStmt) continue;
      const fields = node.ColumnRef?.fields as Node[] | undefined;
      if (fields?.length === 1 && typeof fields[0]?.String?.sval === 'string') into.add(fields[0].String.sval);
      else stack.push(...Object.values(node));
    }
  }
  return into;
}
