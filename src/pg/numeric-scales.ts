/**
 * `scale(numeric)` and `min_scale(numeric)` (int4): DuckDB has neither. A DECIMAL holds one scale for a
 * whole column, PostgreSQL's numeric one per value: they agree for a column, a constant, a cast with a
 * typmod and + - * of those (the sum's scale the larger, the product's their sum, in both), which is
 * what scale() answers; elsewhere (a division, avg, a float cast to numeric) it is refused. min_scale
 * reads the value's digits, which any DECIMAL holds exactly.
 */
import { refuse } from './pg-calls.js';
import { dispatch } from './pg-result-types.js';
import { names, type Node } from './rewrite-nodes.js';

const INTEGERS = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];

/** An expression whose DECIMAL scale is PostgreSQL's scale of each of its values. */
function scaleKept(n: Node | undefined): boolean {
  if (!n) return false;
  if (n.ColumnRef || n.A_Const) return true;
  // a cast with a typmod, or of a constant (PostgreSQL's scale of its text)
  if (n.TypeCast)
    return (!!n.TypeCast.typeName?.typmods?.length || !!n.TypeCast.arg?.A_Const) && scaleKept(n.TypeCast.arg);
  const e = n.A_Expr as Node | undefined;
  if (e?.kind === 'AEXPR_OP' && ['+', '-', '*'].includes(names(e.name).slice(-1)[0] ?? ''))
    return (e.lexpr === undefined || scaleKept(e.lexpr)) && scaleKept(e.rexpr);
  const f = n.FuncCall as Node | undefined;
  const fn = names(f?.funcname).slice(-1)[0];
  return !!f && ['sum', 'min', 'max', 'abs'].includes(fn ?? '') && !f.agg_star && scaleKept(f.args?.[0]);
}

/** `scale(x)` / `min_scale(x)` as written (`written`) and walked (`arg`); undefined where the tag cannot be formed. */
export function numericScaleCall(fn: 'scale' | 'min_scale', written: Node, arg: Node): Node | undefined {
  if (fn === 'scale' && !scaleKept(written))
    throw refuse(
      'scale() of an expression whose numeric scale varies per value (a division, avg, a float cast to numeric)',
      "DuckDB's DECIMAL holds one scale for the whole column: use min_scale(x), or cast first: scale(x::numeric(20, 4)).",
    );
  return dispatch(fn, [arg], [arg]);
}

/**
 * `trim_scale(x)`: the value at its least scale. Its scale is per value, which the wire sends for an outermost
 * select-list item (pg/shown-numeric.ts's `scaled`, at min_scale); elsewhere a DECIMAL keeps the column's
 * scale, so it is refused there.
 */
export function trimScaleCall(arg: Node, shown: boolean): Node | undefined {
  if (!shown)
    throw refuse(
      'trim_scale() inside an expression',
      "DuckDB's DECIMAL holds one scale for the whole column: trim_scale(x) is answered as an item of the outermost select list; compare or compute with x itself (trim_scale changes no value).",
    );
  return dispatch('trim_scale', [arg], [arg]);
}

/** The struct the wire sends as a numeric at scale n (pg/shown-numeric.ts `scaled`). */
const scaled = (x: string, n: string): string =>
  `CASE WHEN x IS NOT NULL THEN {'fdl_pg_numeric': CAST(x AS DOUBLE), 'fdl_pg_of': 'scaled', 'fdl_pg_n': ${n}, 'fdl_pg_x': ${x}, 'fdl_pg_x2': NULL} END`;

export const NUMERIC_SCALE_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_trim_scale(t DECIMAL, x)',
    scaled('x', `CAST(length(rtrim(split_part(CAST(x AS VARCHAR), '.', 2), '0')) AS INTEGER)`),
  ],
  ...INTEGERS.map((t): [string, string] => [`_pgsem_trim_scale(t ${t}, x)`, scaled('CAST(x AS DECIMAL(38, 0))', '0')]),
  [
    '_pgsem_trim_scale(t, x)',
    `error('trim_scale() of this type is not supported by fdl-gateway|trim_scale takes a numeric: cast the value, trim_scale(x::numeric).')`,
  ],
  [
    '_pgsem_scale(t DECIMAL, x)',
    `CASE WHEN x IS NOT NULL THEN CAST(regexp_extract(typeof(x), ',(\\d+)\\)', 1) AS INTEGER) END`,
  ],
  ['_pgsem_min_scale(t DECIMAL, x)', `CAST(length(rtrim(split_part(CAST(x AS VARCHAR), '.', 2), '0')) AS INTEGER)`],
  ...INTEGERS.flatMap((t): Array<[string, string]> => [
    [`_pgsem_scale(t ${t}, x)`, 'CASE WHEN x IS NOT NULL THEN 0 END'],
    [`_pgsem_min_scale(t ${t}, x)`, 'CASE WHEN x IS NOT NULL THEN 0 END'],
  ]),
];
