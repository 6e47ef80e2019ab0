/**
 * Parameter types. A type the client declares in Parse is the parameter's type (DuckDB is told with
 * an explicit cast). An undeclared one gets the type PostgreSQL 15 infers from its context, not
 * DuckDB's: the cast it sits in, LIMIT/OFFSET (int8), the other side of an operator (`qty + $1` is
 * int2, `qty < ANY($1)` int2[], `(a, b) = ($1, $2)` pairwise), the other arguments of COALESCE,
 * GREATEST, LEAST and NULLIF, and the argument types of common functions (`left($1, $2)` is text,
 * int4). "The other side's type" is asked of DuckDB itself with a probe statement that is prepared,
 * never run. The mapping is part of the one type table (compat/types.ts). numeric has no one DuckDB
 * type (valueTypedParam): such a parameter is typed by its value at Bind.
 */
import { DuckDBTypeId, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { deparseSync } from 'pgsql-parser';
import { duckdbTypeToPg, PARAM_DUCKDB_TYPE } from './types.js';
import { COMPAT_DB } from './catalog/names.js';
import { PG_TYPES } from './catalog/pg-data.js';
import { parsePg, parsePrintedPg } from './pg-parse.js';
import { counted } from '../stages.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import { replaceParams } from '../text/split.js';

export function duckTypeForOid(oid: number): string | undefined {
  return PARAM_DUCKDB_TYPE.get(oid);
}

/**
 * numeric and numeric[] have no one DuckDB type: PostgreSQL's numeric keeps each value's own scale
 * (1.25 * 2 = 2.50). Such a parameter is left untyped in the prepared statement, and its value arrives
 * at Bind as a DECIMAL of its own precision and scale (wire/types/params.ts), which DuckDB binds to.
 */
export function valueTypedParam(oid: number | undefined): boolean {
  return oid === NUMERIC || oid === NUMERIC_ARRAY;
}

/** The DuckDB type a parameter stands in as when the result's columns are worked out before Bind. */
export function shapeParamType(oid: number): string {
  return (
    duckTypeForOid(oid) ?? (oid === NUMERIC ? 'DECIMAL(38,10)' : oid === NUMERIC_ARRAY ? 'DECIMAL(38,10)[]' : 'VARCHAR')
  );
}

/** reg* types: a declared parameter is resolved to the OID its name (or OID digits) denotes, as PostgreSQL's input function does. */
const REG_INPUT: ReadonlyMap<number, string> = new Map([
  [2205, '_regclass_in'],
  [2206, '_regtype_in'],
  [24, '_regproc_in'],
  [2202, '_regproc_in'],
  [4089, '_regnamespace_in'],
  [4096, '_regrole_in'],
]);

/**
 * The SQL a parameter `$n` declared with `oid` (DuckDB type `duckType`) is prepared as; `asNumeric`: it
 * stands where the client wrote `$n::numeric` (the rewrite left it bare, rewrite-casts.ts).
 */
export function declaredParamSql(n: number, duckType: string, oid: number, asNumeric = false): string {
  const input = REG_INPUT.get(oid);
  const typed = input ? `${COMPAT_DB}.pgcat.${input}(($${n}::${duckType}))` : `($${n}::${duckType})`;
  // `$n::numeric` of a declared integer is scale 0; of anything else refused as pg-macros.ts says.
  return asNumeric ? `${COMPAT_DB}.pgcat._pgsem_pnumeric(${typed}, ${typed})` : typed;
}

const INT4 = 23,
  INT8 = 20,
  TEXT = 25,
  FLOAT8 = 701,
  NUMERIC = 1700,
  NUMERIC_ARRAY = 1231,
  INTERVAL = 1186;

/** PostgreSQL type name (as the grammar spells a cast target: int4, varchar, jsonb…) → [OID, array OID]. */
const TYPE_BY_NAME: ReadonlyMap<string, readonly [number, number]> = new Map(
  PG_TYPES.map((r) => [r[1] as string, [r[0] as number, r[9] as number]] as const),
);

/**
 * Argument types PostgreSQL 15 resolves for untyped parameters of common functions, by name and
 * argument count (null: that argument is not decided by the function alone). Each row is checked
 * against PostgreSQL 15 in test/pg-semantics.test.ts.
 */
const FUNCTION_ARGS: ReadonlyMap<string, ReadonlyArray<number | null>> = new Map([
  ['length/1', [TEXT]],
  ['left/2', [TEXT, INT4]],
  ['right/2', [TEXT, INT4]],
  ['repeat/2', [TEXT, INT4]],
  ['lpad/2', [TEXT, INT4]],
  ['lpad/3', [TEXT, INT4, TEXT]],
  ['rpad/2', [TEXT, INT4]],
  ['rpad/3', [TEXT, INT4, TEXT]],
  ['substr/2', [TEXT, INT4]],
  ['substr/3', [TEXT, INT4, INT4]],
  ['substring/2', [TEXT, INT4]],
  ['substring/3', [TEXT, INT4, INT4]],
  ['position/2', [TEXT, TEXT]],
  ['strpos/2', [TEXT, TEXT]],
  ['replace/3', [TEXT, TEXT, TEXT]],
  ['initcap/1', [TEXT]],
  ['md5/1', [TEXT]],
  ['btrim/1', [TEXT]],
  ['btrim/2', [TEXT, TEXT]],
  ['ltrim/1', [TEXT]],
  ['ltrim/2', [TEXT, TEXT]],
  ['rtrim/1', [TEXT]],
  ['rtrim/2', [TEXT, TEXT]],
  ['starts_with/2', [TEXT, TEXT]],
  ['to_date/2', [TEXT, TEXT]],
  ['to_timestamp/1', [FLOAT8]],
  ['to_timestamp/2', [TEXT, TEXT]],
  ['split_part/3', [TEXT, TEXT, INT4]],
  ['abs/1', [FLOAT8]],
  ['round/1', [FLOAT8]],
  ['round/2', [NUMERIC, INT4]],
  ['ceil/1', [FLOAT8]],
  ['floor/1', [FLOAT8]],
  ['sqrt/1', [FLOAT8]],
  ['exp/1', [FLOAT8]],
  ['ln/1', [FLOAT8]],
  ['sign/1', [FLOAT8]],
  ['trunc/1', [FLOAT8]],
  ['power/2', [FLOAT8, FLOAT8]],
  ['make_date/3', [INT4, INT4, INT4]],
  ['date_trunc/2', [TEXT, null]],
  ['percentile_cont/1', [FLOAT8]],
  ['percentile_disc/1', [FLOAT8]],
]);

/**
 * Functions whose parameters take the type of their other arguments (PostgreSQL's anyelement-like
 * resolution), by how many leading arguments share it: generate_series's bounds (its step is theirs, or an
 * interval beside timestamps), width_bucket's operand and bounds (its count is int4).
 */
const SAME_TYPE_ARGS: ReadonlyMap<string, number> = new Map([
  ['generate_series', 2],
  ['width_bucket', 3],
]);
const DATETIME_CASTS = new Set(['timestamp', 'timestamptz', 'date']);
const WRITTEN_DATETIME_OIDS: Readonly<Record<string, number>> = { timestamp: 1114, timestamptz: 1184 };
const castName = (n: Node): string => String(n.TypeCast?.typeName?.names?.slice(-1)[0]?.String?.sval);
/** Whether a node is written as a date/time (`$1::timestamp`, `timestamp '…'`, now()): a series of it steps by an interval. */
const datetimeWritten = (n: Node): boolean =>
  DATETIME_CASTS.has(castName(n)) ||
  ['now', 'current_timestamp'].includes(String(n.FuncCall?.funcname?.slice(-1)[0]?.String?.sval)) ||
  n.SQLValueFunction !== undefined;

/** What decides an undeclared parameter that PostgreSQL types from its context. */
type Hint = { like: 'scalar' | 'array'; op?: string };

type Node = Record<string, any>;
const isParam = (n: unknown): n is { ParamRef: { number: number } } => !!(n as Node | undefined)?.ParamRef;
const paramNo = (n: Node): number => n.ParamRef.number as number;
const fn = (name: string, args: Node[]): Node => ({
  FuncCall: { funcname: [{ String: { sval: name } }], args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
const isNull = (arg: Node): Node => ({ NullTest: { arg, nulltesttype: 'IS_NULL' } });
const NULL: Node = { A_Const: { isnull: true } };
/** Probes of one parameter at a time, at most (each is a DuckDB prepare; only after the first probe failed). */
const MAX_SINGLE_PROBES = 8;
const COMPARISON = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);

interface Walk {
  fixed: Map<number, number>;
  hints: Map<number, Hint>;
  /** How `x op $n` is probed: as `x op x` (keeps the result type), or as `x` where DuckDB has no `x op x`. */
  arithmetic: (n: number) => 'same' | 'other';
}

/**
 * What PostgreSQL's grammar alone says of `sql`'s undeclared parameters, before DuckDB sees it:
 * the types their own context fixes (a cast, LIMIT, a function's argument), and whether a probe
 * must ask DuckDB whatever DuckDB itself makes of them (an operator other than a comparison, a
 * COALESCE…): then the statement is prepared once, after the probe. null: not one PostgreSQL statement.
 */
export function paramContext(
  clientSql: string,
  sql: string,
): { fixed: ReadonlyMap<number, number>; probes: boolean } | null {
  const tree = parsePrintedPg(sql);
  const stmt = tree?.stmts?.length === 1 ? tree.stmts[0]!.stmt : undefined;
  if (!stmt) return null;
  const w: Walk = { fixed: new Map(), hints: new Map(), arithmetic: () => 'same' };
  transform(stmt, w);
  if (clientSql !== sql) {
    const client = parsePg(clientSql);
    const own: Walk = { fixed: new Map(), hints: new Map(), arithmetic: () => 'same' };
    if (client?.stmts?.length === 1) transform(client.stmts[0]!.stmt, own);
    for (const [n, oid] of own.fixed) w.fixed.set(n, oid);
  }
  for (const n of w.fixed.keys()) w.hints.delete(n);
  return { fixed: w.fixed, probes: [...w.hints.values()].some((h) => h.op === undefined || !COMPARISON.has(h.op)) };
}

/**
 * Parameter types inferred with DuckDB's probes, by the scope they were bound in (session/planner.ts
 * checkScope: the repository's instance, a frozen version's database, the search path, the
 * configuration's generation) and what decided them: both texts, and per parameter the type it is
 * prepared as and whether DuckDB typed it. A probe binds over the version's catalog only, which never
 * changes in a scope, so another session's first run of a text is not probed again (issue 26: each
 * text prepared by DuckDB once per parameter-type signature). Only inferences whose probes all bound
 * are kept: a probe that failed (as one of a text's modes may) is tried again.
 */
const probedTypes = new LRUCache<string, ReadonlyMap<number, number>>({
  max: 4096,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (types, key) => 2 * key.length + 32 * types.size + 64,
});
trimWhenIdle(lruTrim(probedTypes));

/**
 * PostgreSQL OIDs for undeclared parameters of `sql` (the statement as DuckDB will prepare it),
 * where PostgreSQL's context rules decide them. `castTo(n)`: the DuckDB type a parameter is already
 * prepared as (declared, or left to DuckDB when undefined). Empty when the text is not one
 * PostgreSQL statement. With a `scope`, an inference made in it before is reused (probedTypes).
 */
export async function inferParamOids(
  conn: DuckDBConnection,
  clientSql: string,
  sql: string,
  castTo: (n: number) => { duckType: string; oid: number } | undefined,
  typedByDuckDB: (n: number) => boolean = () => false,
  scope?: string,
): Promise<Map<number, number>> {
  if (scope === undefined) return inferWithProbes(conn, clientSql, sql, castTo, typedByDuckDB, { failed: false });
  let count = 0;
  replaceParams(sql, (n) => ((count = Math.max(count, n)), undefined));
  const signature: string[] = [];
  for (let n = 1; n <= count; n++) {
    const cast = castTo(n);
    signature.push(`${cast ? `${cast.duckType}/${cast.oid}` : ''}:${typedByDuckDB(n) ? 1 : 0}`);
  }
  const key = [scope, clientSql, sql, signature.join(',')].join('\u0000');
  const known = probedTypes.get(key);
  if (known) return new Map(known);
  const probes = { failed: false };
  const types = await inferWithProbes(conn, clientSql, sql, castTo, typedByDuckDB, probes);
  if (!probes.failed) probedTypes.set(key, new Map(types));
  return types;
}

async function inferWithProbes(
  conn: DuckDBConnection,
  clientSql: string,
  sql: string,
  castTo: (n: number) => { duckType: string; oid: number } | undefined,
  typedByDuckDB: (n: number) => boolean,
  probes: { failed: boolean },
): Promise<Map<number, number>> {
  const tree = parsePrintedPg(sql);
  const stmt = tree?.stmts?.length === 1 ? tree.stmts[0]!.stmt : undefined;
  if (!stmt) return new Map();
  const w: Walk = { fixed: new Map(), hints: new Map(), arithmetic: () => 'same' };
  const probeTree = transform(stmt, w);
  if (clientSql !== sql) {
    // Casts and functions are read in the client's text: the rewrite spells `$1::jsonb` as json for DuckDB.
    const client = parsePg(clientSql);
    const own: Walk = { fixed: new Map(), hints: new Map(), arithmetic: () => 'same' };
    if (client?.stmts?.length === 1) transform(client.stmts[0]!.stmt, own);
    for (const [n, oid] of own.fixed) w.fixed.set(n, oid);
  }
  for (const n of [...w.fixed.keys(), ...w.hints.keys()])
    if (castTo(n)) {
      w.fixed.delete(n);
      w.hints.delete(n);
    }
  const out = new Map(w.fixed);
  // DuckDB already gives `x = $1` x's type: a statement with only such parameters needs no probe.
  if (![...w.hints].some(([n, h]) => h.op === undefined || !COMPARISON.has(h.op) || !typedByDuckDB(n))) return out;
  const version = (tree as Node).version;
  // Every `x op $n` as `x op x` first; where DuckDB has no such operator (`interval * interval`), as `x`:
  // for one parameter at a time, then for all, so one such operator does not undo the others.
  let probed = await probeTypes(conn, version, probeTree, w, out, castTo, probes);
  const arithmetic = [...w.hints]
    .filter(([, h]) => h.op && ARITHMETIC.has(h.op))
    .map(([n]) => n)
    .slice(0, MAX_SINGLE_PROBES);
  for (const mode of [
    ...arithmetic.map((k) => (n: number) => (n === k ? ('other' as const) : ('same' as const))),
    () => 'other' as const,
  ]) {
    if (probed || arithmetic.length === 0) break;
    probed = await probeTypes(
      conn,
      version,
      transform(stmt, { fixed: new Map(), hints: new Map(), arithmetic: mode }),
      w,
      out,
      castTo,
      probes,
    );
  }
  // `select $1, $1 + 1`: DuckDB cannot type a bare select-list parameter that another use types; probed
  // without those items, the other uses give it their type (PostgreSQL then says 42P08: param-conflicts.ts)
  const bareless = [...w.hints.keys()].some((n) => !probed?.has(n)) ? withoutBareItems(probeTree) : undefined;
  const again = bareless && (await probeTypes(conn, version, bareless, w, out, castTo, probes));
  if (again) probed = again;
  for (const [n, oid] of probed ?? []) out.set(n, oid);
  return out;
}

/** A plain select whose select-list items that are a bare parameter are NULL instead; undefined when it has none. */
function withoutBareItems(stmt: Node): Node | undefined {
  const select = stmt.SelectStmt as Node | undefined;
  const items = select?.targetList as Node[] | undefined;
  if (!select || (select.op && select.op !== 'SETOP_NONE') || !items?.some((t) => t.ResTarget?.val?.ParamRef))
    return undefined;
  const targetList = items.map((t) => (t.ResTarget?.val?.ParamRef ? { ResTarget: { ...t.ResTarget, val: NULL } } : t));
  return { SelectStmt: { ...select, targetList } };
}

/**
 * The probe: each hinted parameter stands in COALESCE(<other side>, $n), so DuckDB gives it the other
 * side's type; parameters already typed are cast. Null when DuckDB cannot bind the probe.
 */
async function probeTypes(
  conn: DuckDBConnection,
  version: unknown,
  probeTree: Node,
  w: Walk,
  fixed: ReadonlyMap<number, number>,
  castTo: (n: number) => { duckType: string; oid: number } | undefined,
  probes: { failed: boolean },
): Promise<Map<number, number> | null> {
  let probeSql: string;
  try {
    probeSql = deparseSync({ version, stmts: [{ stmt: probeTree }] } as Parameters<typeof deparseSync>[0]);
  } catch {
    return null;
  }
  probeSql = replaceParams(probeSql, (n) => {
    if (w.hints.has(n)) return undefined;
    const declared = castTo(n);
    if (declared) return declaredParamSql(n, declared.duckType, declared.oid);
    const oid = fixed.get(n);
    const t = oid !== undefined ? duckTypeForOid(oid) : undefined;
    return t ? `($${n}::${t})` : undefined;
  });
  let probe: DuckDBPreparedStatement | null = null;
  try {
    counted('type_probe');
    probe = await conn.prepare(probeSql);
    const out = new Map<number, number>();
    // Hinted parameters, and any other untyped one DuckDB types once the rest are typed.
    for (let n = 1; n <= probe.parameterCount; n++) {
      if (castTo(n) || fixed.has(n)) continue;
      const id = probe.parameterTypeId(n);
      if (id === DuckDBTypeId.INVALID || id === DuckDBTypeId.ANY || id === DuckDBTypeId.SQLNULL) continue;
      const oid = duckdbTypeToPg(probe.parameterType(n).toString()).oid;
      const hint = w.hints.get(n);
      out.set(n, hint ? adjustForOperator(oid, hint) : oid);
    }
    return out;
  } catch {
    probes.failed = true;
    return null;
  } finally {
    probe?.destroySync();
  }
}

/** PostgreSQL has no `timestamp + timestamp` or `interval * interval`: there the unknown side is interval / float8. */
function adjustForOperator(oid: number, hint: Hint): number {
  if (hint.like === 'array' || !hint.op) return oid;
  if (hint.op === '+' && (oid === 1114 || oid === 1184 || oid === 1083 || oid === 1266)) return INTERVAL;
  if ((hint.op === '*' || hint.op === '/') && oid === INTERVAL) return FLOAT8;
  return oid;
}

/** A copy of `node` in which hinted parameters are wrapped for the probe; records what decides each parameter. */
function transform(node: unknown, w: Walk): any {
  if (Array.isArray(node)) return node.map((x) => transform(x, w));
  if (!node || typeof node !== 'object') return node;
  const n = node as Node;
  if (n.TypeCast && isParam(n.TypeCast.arg)) {
    const tn = n.TypeCast.typeName as Node;
    const parts = (tn.names as Node[]).map((x) => String(x.String?.sval ?? ''));
    const t = TYPE_BY_NAME.get(parts[parts.length - 1]!);
    // the first context a parameter meets decides its type, as PostgreSQL's analysis (the tree's order): a later
    // cast converts from it (`$1::timestamp, $1::date` is a timestamp; the last cast made it a date: midnight)
    const no = paramNo(n.TypeCast.arg);
    if (t && !w.fixed.has(no) && !w.hints.has(no))
      w.fixed.set(no, Array.isArray(tn.arrayBounds) && tn.arrayBounds.length > 0 ? t[1] : t[0]);
    return n;
  }
  if (n.SelectStmt) {
    const s = n.SelectStmt as Node;
    for (const k of ['limitCount', 'limitOffset']) if (isParam(s[k])) w.fixed.set(paramNo(s[k]), INT8);
  }
  if (n.A_Expr) {
    const e = n.A_Expr as Node;
    const op = String((e.name as Node[] | undefined)?.slice(-1)[0]?.String?.sval ?? '');
    const probe = binaryHint(e, op, w);
    if (probe) return probe;
  }
  if (n.CoalesceExpr || n.MinMaxExpr) {
    const key = n.CoalesceExpr ? 'CoalesceExpr' : 'MinMaxExpr';
    const args = n[key].args as Node[];
    const other = args.find((a) => !isParam(a));
    if (other) {
      const t = transform(other, w);
      return { [key]: { ...n[key], args: args.map((a) => (isParam(a) ? like(a, t, w, undefined) : transform(a, w))) } };
    }
  }
  if (n.FuncCall) {
    const f = n.FuncCall as Node;
    const name = String((f.funcname as Node[]).slice(-1)[0]?.String?.sval ?? '').toLowerCase();
    const args = (f.args ?? []) as Node[];
    const shared = SAME_TYPE_ARGS.get(name) ?? 0;
    const other = args.slice(0, shared).find((a) => !isParam(a));
    if (other) {
      // generate_series(1, $1): the parameter takes the other bound's type.
      const t = transform(other, w);
      const step = name === 'generate_series' && datetimeWritten(other) ? INTERVAL : undefined;
      return {
        FuncCall: {
          ...f,
          args: args.map((a, i) => {
            if (!isParam(a)) return transform(a, w);
            // a bound beside a timestamp cast is that type (a probe of COALESCE with it found no one overload)
            const bound = i < shared && step !== undefined ? WRITTEN_DATETIME_OIDS[castName(other)] : undefined;
            if (bound !== undefined) {
              w.fixed.set(paramNo(a), bound);
              return a;
            }
            if (i < shared || (name === 'generate_series' && step === undefined)) return like(a, t, w, undefined);
            const fixed = step ?? (name === 'width_bucket' ? INT4 : undefined);
            if (fixed !== undefined) w.fixed.set(paramNo(a), fixed);
            return a;
          }),
        },
      };
    }
    const types = FUNCTION_ARGS.get(`${name}/${args.length}`);
    if (types) args.forEach((a, i) => isParam(a) && types[i] != null && w.fixed.set(paramNo(a), types[i]!));
  }
  const out: Node = {};
  for (const k of Object.keys(n)) out[k] = transform(n[k], w);
  return out;
}

/**
 * `$n` takes the type of `other` (already transformed): probed as COALESCE(other, $n). PostgreSQL types
 * a parameter at its first use and reads the later ones as that type (`price / $1, rate * $1` is numeric,
 * `qty * $1, amount * $1` int2): a later use stands as `other` alone, so two uses of different types
 * (DECIMAL(12,2), DECIMAL(10,4)) do not leave DuckDB's probe without one type.
 */
function like(param: Node, other: Node, w: Walk, op: string | undefined): Node {
  if (w.hints.has(paramNo(param))) return other;
  w.hints.set(paramNo(param), op ? { like: 'scalar', op } : { like: 'scalar' });
  return { CoalesceExpr: { args: [other, param] } };
}

/** Operators, ANY/ALL, NULLIF and row comparisons with an untyped parameter on one side. */
function binaryHint(e: Node, op: string, w: Walk): Node | undefined {
  const { lexpr, rexpr } = e;
  if ((e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') && isParam(rexpr) && lexpr && !isParam(lexpr)) {
    // x op ANY($n): $n is an array of x's type. Probed as list_contains(COALESCE([x], $n), x), a boolean like the original.
    const l = transform(lexpr, w);
    w.hints.set(paramNo(rexpr), { like: 'array' });
    return fn('list_contains', [{ CoalesceExpr: { args: [{ A_ArrayExpr: { elements: [l] } }, rexpr] } }, l]);
  }
  if (e.kind === 'AEXPR_NULLIF' && lexpr && rexpr && isParam(lexpr) !== isParam(rexpr)) {
    const [p, o] = isParam(lexpr) ? [lexpr, rexpr] : [rexpr, lexpr];
    const t = transform(o, w);
    return {
      A_Expr: {
        ...e,
        lexpr: isParam(lexpr) ? like(p, t, w, undefined) : t,
        rexpr: isParam(rexpr) ? like(p, t, w, undefined) : t,
      },
    };
  }
  if (e.kind !== 'AEXPR_OP' || !lexpr || !rexpr) return undefined;
  if (
    COMPARISON.has(op) &&
    lexpr.RowExpr &&
    rexpr.RowExpr &&
    lexpr.RowExpr.args?.length === rexpr.RowExpr.args?.length
  ) {
    // (a, b) = ($1, $2): pairwise. Probed as a boolean over COALESCE(a, $1), COALESCE(b, $2).
    const ls = lexpr.RowExpr.args as Node[],
      rs = rexpr.RowExpr.args as Node[];
    const tests: Node[] = [];
    ls.forEach((l, i) => {
      const r = rs[i]!;
      if (isParam(l) === isParam(r)) tests.push(isNull(transform({ RowExpr: { args: [l, r] } }, w)));
      else tests.push(isNull(like(isParam(l) ? l : r, transform(isParam(l) ? r : l, w), w, undefined)));
    });
    return tests.length === 1 ? tests[0] : { BoolExpr: { boolop: 'AND_EXPR', args: tests } };
  }
  if (isParam(lexpr) === isParam(rexpr)) return undefined;
  if (!COMPARISON.has(op) && !ARITHMETIC.has(op)) return undefined;
  const [p, o] = isParam(lexpr) ? [lexpr, rexpr] : [rexpr, lexpr];
  const other = transform(o, w);
  const hinted = like(p, other, w, op);
  // Comparisons stay booleans; arithmetic is probed as `other op other` (the result type), or as `other`.
  if (COMPARISON.has(op)) return isNull(hinted);
  const result = w.arithmetic(paramNo(p)) === 'same' ? { A_Expr: { ...e, lexpr: other, rexpr: other } } : other;
  return { CaseExpr: { args: [{ CaseWhen: { expr: isNull(hinted), result: NULL } }], defresult: result } };
}
