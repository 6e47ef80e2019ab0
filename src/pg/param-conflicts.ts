/**
 * Parameter types PostgreSQL 15 refuses where the gateway had picked one (param-types.ts infers them):
 * a parameter only tested by IS [NOT] NULL has no type (`select $1 is null`: 42P18 "could not determine
 * data type of parameter $1"; the gateway said text), and a bare select-list item `$1` is resolved to text
 * after the rest of the statement has typed it otherwise (`select $1, $1::int`: 42P08 "inconsistent types
 * deduced for parameter $1"; the gateway said int4 for both). PostgreSQL's parse analysis reads WITH and
 * FROM first, then the select list in order: an earlier typed use gives the bare item that type.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { PG_TYPES } from './catalog/pg-data.js';
import { parsePg } from './pg-parse.js';
import { parameterNumbers } from '../text/parameter-numbers.js';

type Node = Record<string, any>;

const TEXT = 25;
const UNKNOWN = 705;

/** format_type's names of the types a parameter is commonly deduced as (the error's detail). */
const FORMAT_TYPE: ReadonlyMap<number, string> = new Map([
  [16, 'boolean'],
  [17, 'bytea'],
  [20, 'bigint'],
  [21, 'smallint'],
  [23, 'integer'],
  [700, 'real'],
  [701, 'double precision'],
  [1043, 'character varying'],
  [1082, 'date'],
  [1083, 'time without time zone'],
  [1114, 'timestamp without time zone'],
  [1184, 'timestamp with time zone'],
  [1186, 'interval'],
  [1700, 'numeric'],
]);
const TYPE_NAMES: ReadonlyMap<number, string> = new Map(PG_TYPES.map((r) => [r[0] as number, r[1] as string]));

const paramOf = (n: Node | undefined): number | undefined =>
  typeof n?.ParamRef?.number === 'number' ? (n.ParamRef.number as number) : undefined;

/** What PostgreSQL's parse analysis has made of a parameter so far, in the order it reads the statement. */
interface Seen {
  /** A use gave it a type (a cast, an operator, a function's argument). */
  typed: Set<number>;
  /** A NullTest read it before any use typed it: that node keeps the unknown type. */
  unknownNode: Set<number>;
}

/** A SelectStmt's clauses in the order transformSelectStmt reads them; other nodes' fields as they come. */
const SELECT_ORDER = [
  'withClause',
  'fromClause',
  'targetList',
  'whereClause',
  'havingClause',
  'sortClause',
  'groupClause',
  'limitOffset',
  'limitCount',
];

function read(n: unknown, seen: Seen): void {
  if (Array.isArray(n)) {
    for (const x of n) read(x, seen);
    return;
  }
  if (!n || typeof n !== 'object') return;
  const node = n as Node;
  const p = paramOf(node);
  if (p !== undefined) {
    seen.typed.add(p);
    return;
  }
  const tested = paramOf(node.NullTest?.arg);
  if (tested !== undefined) {
    if (!seen.typed.has(tested)) seen.unknownNode.add(tested);
    return;
  }
  const select = node.SelectStmt as Node | undefined;
  if (select && (!select.op || select.op === 'SETOP_NONE')) {
    for (const k of SELECT_ORDER) read(select[k], seen);
    return;
  }
  for (const v of Object.values(node)) read(v, seen);
}

/** `oids`: each parameter's type as the gateway will describe it; `declared`: the client's (0: none). */
export function refuseParamConflicts(clientSql: string, oids: readonly number[], declared: readonly number[]): void {
  const tree = parsePg(clientSql);
  const stmt = tree?.stmts?.length === 1 ? (tree.stmts[0]!.stmt as Node | undefined) : undefined;
  const select = stmt?.SelectStmt as Node | undefined;
  if (!select) return;
  const inferred = (n: number) => !declared[n - 1];
  const plain = !select.op || select.op === 'SETOP_NONE';
  // 42P08 (resolveTargetListUnknowns): a bare select-list item no earlier use typed is text, and the statement typed it otherwise.
  const seen: Seen = { typed: new Set(), unknownNode: new Set() };
  const bare = new Set<number>();
  if (plain) {
    read([select.withClause, select.fromClause], seen);
    for (const item of (select.targetList ?? []) as Node[]) {
      const p = paramOf(item.ResTarget?.val);
      if (p === undefined) {
        read(item, seen);
        continue;
      }
      if (seen.typed.has(p)) continue;
      bare.add(p);
      const oid = oids[p - 1] ?? 0;
      if (inferred(p) && ![0, TEXT, UNKNOWN].includes(oid)) {
        const name = FORMAT_TYPE.get(oid) ?? TYPE_NAMES.get(oid);
        throw new SqlError(
          SQLSTATE.inconsistentDatatypes,
          `inconsistent types deduced for parameter $${p}`,
          name ? `${name} versus text` : undefined,
        );
      }
    }
  }
  // After analysis (check_variable_parameters): a NullTest's node left unknown. PostgreSQL's 42P18 where
  // nothing typed the parameter, its 42P08 where a later use (or a bare select-list item, text) did.
  const all: Seen = { typed: new Set(), unknownNode: new Set() };
  if (plain) {
    // a bare select-list item is typed text only at the end of analysis
    const items = ((select.targetList ?? []) as Node[]).filter((t) => paramOf(t.ResTarget?.val) === undefined);
    read([select.withClause, select.fromClause, items], all);
    for (const k of SELECT_ORDER.slice(3)) read(select[k], all);
  } else read(select, all);
  for (const n of [...all.unknownNode].sort((a, b) => a - b)) {
    if (!inferred(n)) continue;
    if (!all.typed.has(n) && !bare.has(n))
      throw new SqlError(SQLSTATE.indeterminateDatatype, `could not determine data type of parameter $${n}`);
    throw new SqlError(SQLSTATE.inconsistentDatatypes, `could not determine data type of parameter $${n}`);
  }
}

/** Type OIDs PostgreSQL's catalog has, as the emulated pg_type lists them. */
const KNOWN_TYPES: ReadonlySet<number> = new Set(TYPE_NAMES.keys());

/**
 * What PostgreSQL 15 checks of a Parse's parameters after its analysis: a statement has as many as the
 * client declared or its highest `$n` numbers, and each one neither used nor declared has no type
 * (`select $1, $65535`: 42P18 "could not determine data type of parameter $2"; the gateway had described
 * two). A declared type OID the catalog does not hold fails where a use reads it (`select $1` declared
 * 999999999: XX000 "cache lookup failed for type 999999999", PostgreSQL's own words; it was accepted).
 */
export function refuseUntypedParams(clientSql: string, declared: readonly number[]): void {
  const used = parameterNumbers(clientSql);
  for (const n of [...used].sort((a, b) => a - b)) {
    const oid = declared[n - 1] ?? 0;
    if (oid !== 0 && !KNOWN_TYPES.has(oid))
      throw new SqlError(SQLSTATE.internalError, `cache lookup failed for type ${oid}`);
  }
  const count = Math.max(declared.length, ...used);
  for (let n = 1; n <= count; n++) {
    const oid = declared[n - 1] ?? 0;
    if (!used.has(n) && (oid === 0 || oid === UNKNOWN))
      throw new SqlError(SQLSTATE.indeterminateDatatype, `could not determine data type of parameter $${n}`);
  }
}
