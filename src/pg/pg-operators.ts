/**
 * PostgreSQL operators and clauses DuckDB's grammar lacks, translated on PostgreSQL's parse tree by
 * rewrite.ts: `#>`/`#>>` (JSON paths), `LIKE`/`ILIKE` `ANY`/`ALL` (arrays of patterns), `ORDER BY …
 * USING <`. What has no faithful translation is refused 0A000 with what to write instead.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { COMPAT_DB } from './catalog/names.js';
import { PGCAT } from './rewrite-nodes.js';

type Node = Record<string, any>;

const str = (sval: string): Node => ({ String: { sval } });
const strConst = (s: string): Node => ({ A_Const: { sval: { sval: s } } });
const call = (name: string, args: Node[]): Node => ({
  FuncCall: { funcname: [str(name)], args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
const refuse = (what: string, hint: string): SqlError =>
  new SqlError(SQLSTATE.featureNotSupported, `${what} is not supported by fdl-gateway`, undefined, hint);

/** PostgreSQL array text `{a,b,1}` → its elements (unquoted); undefined when not a plain one. */
function pathElements(n: Node | undefined): string[] | undefined {
  const s = n?.A_Const?.sval?.sval ?? n?.TypeCast?.arg?.A_Const?.sval?.sval;
  if (typeof s !== 'string' || !/^\{.*\}$/s.test(s.trim())) return undefined;
  const inner = s.trim().slice(1, -1);
  if (inner.trim() === '') return [];
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*?))\s*(?:,|$)/gy;
  for (let m = re.exec(inner); m && re.lastIndex <= inner.length; m = re.exec(inner)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
    if (re.lastIndex >= inner.length) break;
  }
  return out;
}

/**
 * `j -> k` and `j ->> k` as the calls DuckDB means by them (json_extract, json_extract_string): DuckDB
 * parses the arrows with other precedences than PostgreSQL (`->` is its lambda arrow), so the printed
 * `j -> 'k' IS NULL` read as `j -> ('k' IS NULL)` (json_extract(JSON, BOOLEAN)) and `NOT j ->> 'k' = 'a'`
 * as `(NOT j) ->> …`; a call keeps PostgreSQL's grouping.
 */
export function jsonArrowCall(op: string, lexpr: Node, rexpr: Node): Node | undefined {
  if (op !== '->' && op !== '->>') return undefined;
  // DuckDB's own lambda (`list_transform(l, x -> x + 1)`, which PostgreSQL's grammar parses as this
  // operator) is left as written: a bare name or names on the left and a body that is not a key.
  const key = !!(rexpr.A_Const || rexpr.ParamRef || rexpr.TypeCast?.arg?.A_Const);
  const names = (lexpr.ColumnRef?.fields?.length === 1 && !lexpr.ColumnRef.fields[0]?.A_Star) || !!lexpr.RowExpr;
  if (op === '->' && names && !key) return undefined;
  return call(op === '->' ? 'json_extract' : 'json_extract_string', [lexpr, rexpr]);
}

/**
 * `j #> '{a,b,1}'` (json) and `j #>> '{a,b,1}'` (text): DuckDB's json_extract / json_extract_string
 * with the path as a JSON pointer (`/a/b/1`: a key, or an array index where the value is an array).
 */
export function jsonPathOperator(op: '#>' | '#>>', lexpr: Node, rexpr: Node): Node {
  const path = pathElements(rexpr);
  if (!path)
    throw refuse(
      `the ${op} operator with a path that is not a constant array text`,
      `Write the path as a literal ('{a,b}'), or use json_extract(j, '$.a.b').`,
    );
  if (path.length === 0)
    return op === '#>'
      ? call('json', [lexpr])
      : { TypeCast: { arg: lexpr, typeName: { names: [str('varchar')], typemod: -1 } } };
  // A negative index counts from the end (PostgreSQL); JSON pointers have none, JSONPath's [#-n] does.
  const spelled = path.some((p) => /^-\d+$/.test(p))
    ? '$' +
      path
        .map((p) =>
          /^-?\d+$/.test(p) ? (p.startsWith('-') ? `[#${p}]` : `[${p}]`) : `."${p.replace(/(["\\])/g, '\\$1')}"`,
        )
        .join('')
    : '/' + path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  return call(op === '#>' ? 'json_extract' : 'json_extract_string', [lexpr, strConst(spelled)]);
}

/**
 * `json[b]_extract_path(j, VARIADIC path)` and `…_text`: PostgreSQL's own definitions of `j #> path` and
 * `j #>> path`, j read as the function's type, the path of constant texts as the operator's array text
 * (undefined otherwise: DuckDB's 42883, as before). The caller walks the result as it walks the operators.
 */
export function jsonExtractPathCall(name: string, fc: Node): Node | undefined {
  const m = /^(jsonb?)_extract_path(_text)?$/.exec(name);
  const args = fc.args as Node[] | undefined;
  if (!m || !args || args.length < 2 || fc.agg_star || fc.agg_distinct || fc.agg_order || fc.over) return undefined;
  const variadic = fc.func_variadic ? args[1]?.A_ArrayExpr?.elements : undefined;
  const steps = fc.func_variadic ? (args.length === 2 ? variadic : undefined) : args.slice(1);
  const texts = steps?.map((a: Node) => a?.A_Const?.sval?.sval);
  if (!texts || texts.some((t: unknown) => typeof t !== 'string')) return undefined;
  const path = `{${(texts as string[]).map((t) => `"${t.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;
  return {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [str(m[2] ? '#>>' : '#>')],
      lexpr: { TypeCast: { arg: args[0], typeName: { names: [str(m[1]!)], typemod: -1 } } },
      rexpr: strConst(path),
    },
  };
}

const LIKE_ANY: Record<string, { macro: string; negate: boolean }> = {
  '~~': { macro: 'like', negate: false },
  '!~~': { macro: 'like', negate: true },
  '~~*': { macro: 'ilike', negate: false },
  '!~~*': { macro: 'ilike', negate: true },
};

/**
 * The macros behind LIKE/ILIKE ANY/ALL (pg-macros.ts installs them): the left side named once, in a
 * one-element list outside every lambda (a subquery may not stand inside one), each pattern matched
 * with PostgreSQL's default backslash escape (ILIKE's sides lowered in ASCII only, as the C locale). Each match is coded true 2, NULL 1, false 0 (negated
 * first for NOT LIKE): ANY is the largest code, ALL the smallest, 1 being NULL — OR's and AND's NULL
 * logic, as PostgreSQL's ScalarArrayOpExpr. Spelling out one match per pattern copied the left side
 * per pattern: a 40 KB statement became 80 MB of SQL (an attacker review ran the gateway out of memory).
 */
export const LIKE_ANY_MACROS: ReadonlyArray<[string, string]> = (['like', 'ilike'] as const).flatMap((m) =>
  (['any', 'all'] as const).map((q): [string, string] => [
    `_pgsem_${m}_${q}(x, ps, neg)`,
    `CASE ${q === 'any' ? 'list_max' : 'list_min'}(list_transform([{'v': x, 'ps': ps}], lambda fdl_pg_l: list_transform(fdl_pg_l['ps'], lambda fdl_pg_p: coalesce(CAST((${m === 'like' ? "like_escape(fdl_pg_l['v'], fdl_pg_p, '\\')" : `like_escape(_pgsem_lower(fdl_pg_l['v']), _pgsem_lower(fdl_pg_p), '\\')`} <> neg) AS INTEGER) * 2, 1)))[1]) WHEN 2 THEN true WHEN 0 THEN false END`,
  ]),
);

/** Whether `x op ANY/ALL (…)` is a LIKE family operator this module translates. */
export function isLikeAny(op: string): boolean {
  return op in LIKE_ANY;
}

/**
 * `x ILIKE ANY (ARRAY['a%', 'b%'])` → one call of the macro over x and the list of patterns
 * (LIKE_ANY_MACROS), x named once. Only an ARRAY[…] list of patterns can be read; anything else is refused.
 */
export function likeAny(kind: 'AEXPR_OP_ANY' | 'AEXPR_OP_ALL', op: string, lexpr: Node, rexpr: Node): Node {
  const patterns = rexpr?.A_ArrayExpr?.elements as Node[] | undefined;
  if (!patterns)
    throw refuse(
      `${op === '~~' || op === '!~~' ? 'LIKE' : 'ILIKE'} ${kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL'} over an array that is not ARRAY[…]`,
      "List the patterns: x ILIKE ANY (ARRAY['a%', 'b%']), or write x ILIKE 'a%' OR x ILIKE 'b%'.",
    );
  // Over no pattern the answer is constant, whatever x is (PostgreSQL evaluates nothing).
  if (patterns.length === 0) return { A_Const: { boolval: { boolval: kind === 'AEXPR_OP_ALL' } } };
  const { macro, negate } = LIKE_ANY[op]!;
  const name = `_pgsem_${macro}_${kind === 'AEXPR_OP_ANY' ? 'any' : 'all'}`;
  return {
    FuncCall: {
      funcname: [str(COMPAT_DB), str(PGCAT), str(name)],
      args: [lexpr, rexpr, { A_Const: { boolval: { boolval: negate } } }],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
}

/** `ORDER BY x USING <` is ascending, `USING >` descending (NULLs placed as for ASC/DESC, as PostgreSQL). */
export function sortUsing(sortBy: Node): Node {
  const op = (sortBy.useOp as Node[] | undefined)?.map((n) => String(n?.String?.sval ?? '')).slice(-1)[0];
  if (op !== '<' && op !== '>')
    throw refuse(`ORDER BY … USING ${op ?? ''}`, 'Use ORDER BY … ASC (USING <) or DESC (USING >).');
  const { useOp: _drop, ...rest } = sortBy;
  return { ...rest, sortby_dir: op === '<' ? 'SORTBY_ASC' : 'SORTBY_DESC' };
}
