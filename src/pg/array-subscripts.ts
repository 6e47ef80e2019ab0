/**
 * `a[i]`, `a[lo:hi]`: PostgreSQL reads a subscript outside the array's bounds as NULL (an element) or
 * clamps it to the bounds (a slice), so `(array[10,20,30])[-1]` is NULL and `[-3:-1]` is `{}`. DuckDB
 * counts a negative subscript from the end (30, and `[10,20,30]`). The rewrite keeps DuckDB's list
 * subscript and gives it only subscripts that mean the same in both: an element's below 1 becomes 0
 * (DuckDB's NULL), a slice's lower bound below 1 becomes 1 and its upper bound below 0 becomes 0 (DuckDB's
 * empty slice). A NULL subscript stays NULL. Positive constants need nothing; a string subscript (jsonb's
 * key) is left alone, and so is any subscript of a value DuckDB's binder does not type as a list (JSON
 * counts from 0 and from the end, as jsonb does): `typeof` is asked, never guessed from the text.
 *
 * A multi-dimensional array (DuckDB's list of lists) is one array in PostgreSQL, subscripted in every
 * dimension at once: fewer element subscripts than dimensions are NULL (`(array[[1,2],[3,4]])[1]`,
 * DuckDB's `[1, 2]`), typed as the element — of an ARRAY[[…]] constructor, whose dimensions the text
 * shows (a column's are DuckDB's binder's to know: documented); with a slice among them every subscript is a slice
 * (`[1:1][2]` is `[1:1][1:2]`, `{{1,2}}`; DuckDB sliced the outer list twice and then took an element).
 */
import { call, compat, str, type Node } from './rewrite-nodes.js';

const int = (ival: number): Node => ({ A_Const: { ival: ival === 0 ? {} : { ival } } });
const below = (x: Node, bound: number): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [str('<')], lexpr: x, rexpr: int(bound) },
});
/** `CASE WHEN x < bound THEN to ELSE x END`: NULL stays NULL (DuckDB's greatest would skip it). */
const atLeast = (x: Node, bound: number, to: number): Node => ({
  CaseExpr: { args: [{ CaseWhen: { expr: below(x, bound), result: int(to) } }], defresult: x },
});

/** Whether a subscript means the same in both: absent, a positive integer constant, or a string (a key). */
function plain(x: Node | undefined): boolean {
  const c = x?.A_Const as Node | undefined;
  if (!x) return true;
  if (!c) return false;
  if (c.sval) return true;
  return c.ival !== undefined && Number(c.ival.ival ?? 0) >= 1;
}

/** `CASE WHEN typeof(arg) LIKE '%[]' THEN bounded ELSE x END`: only a list's subscript is bounded. */
const ofList = (arg: Node, bounded: Node, x: Node): Node => ({
  CaseExpr: {
    args: [
      {
        CaseWhen: {
          expr: {
            A_Expr: {
              kind: 'AEXPR_LIKE',
              name: [str('~~')],
              lexpr: call(['typeof'], [arg]),
              rexpr: { A_Const: { sval: { sval: '%[]' } } },
            },
          },
          result: bounded,
        },
      },
    ],
    defresult: x,
  },
});

/**
 * `arg[…]` (both already walked) as PostgreSQL reads it: its subscripts bounded (below), an element of
 * fewer subscripts than the array's dimensions NULL, two with a slice among them slices in both
 * dimensions. Undefined when nothing changes.
 */
export function pgIndirection(arg: Node, indirection: Node[]): Node | undefined {
  const steps = pgSubscripts(arg, indirection) ?? indirection;
  const indices = steps.map((step) => step?.A_Indices as Node | undefined);
  if (indices.some((ix) => !ix || ix.lidx?.A_Const?.sval || ix.uidx?.A_Const?.sval))
    return bounded(arg, steps, indirection);
  if (indices.some((ix) => ix!.is_slice)) {
    if (indices.length !== 2) return bounded(arg, steps, indirection);
    // each dimension sliced: an element subscript i is the slice 1:i
    const bounds = indices.flatMap((ix) =>
      ix!.is_slice ? [ix!.lidx ?? int(1), ix!.uidx ?? int(MAX_BOUND)] : [int(1), ix!.uidx as Node],
    );
    return compat('_pgsem_slices', [arg, ...bounds]);
  }
  // fewer element subscripts than an ARRAY[[…]] constructor's dimensions: DuckDB's subscript 0 is a NULL of the element's type
  const missing = depthOf(arg) - steps.length;
  if (missing <= 0) return bounded(arg, steps, indirection);
  const nulls = Array.from({ length: missing }, () => ({ A_Indices: { uidx: int(0) } }));
  return { A_Indirection: { arg, indirection: [...steps, ...nulls] } };
}

/** The dimensions of an ARRAY[…] constructor (nested constructors), else 0: a value's own are known only to DuckDB's binder. */
function depthOf(n: Node | undefined): number {
  const elements = n?.A_ArrayExpr?.elements as Node[] | undefined;
  if (!elements) return 0;
  return 1 + (elements[0]?.A_ArrayExpr ? depthOf(elements[0]) : 0);
}

/** The largest upper bound of a slice: DuckDB clamps it to the list's length, as PostgreSQL to the array's. */
const MAX_BOUND = 2147483647;

const bounded = (arg: Node, steps: Node[], indirection: Node[]): Node | undefined =>
  steps === indirection ? undefined : { A_Indirection: { arg, indirection: steps } };

/** `_pgsem_slices` slices both dimensions; a slice empty in either is `{}`, as PostgreSQL's. */
export const SUBSCRIPT_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_slices(a, l1, u1, l2, u2)',
    'list_filter(list_transform(a[l1:u1], lambda fdl_pg_r: fdl_pg_r[l2:u2]), lambda fdl_pg_r: len(fdl_pg_r) > 0)',
  ],
];

/** The subscripts of `arg[…]` (both already walked) given PostgreSQL's bounds; undefined when nothing changes. */
export function pgSubscripts(arg: Node, indirection: Node[]): Node[] | undefined {
  let changed = false;
  const bound = (x: Node, bounded: Node): Node => ofList(arg, bounded, x);
  const out = indirection.map((step) => {
    const ix = step?.A_Indices as Node | undefined;
    if (!ix || (plain(ix.lidx) && plain(ix.uidx))) return step;
    changed = true;
    if (!ix.is_slice) return { A_Indices: { ...ix, uidx: bound(ix.uidx, call(['greatest'], [ix.uidx, int(0)])) } };
    return {
      A_Indices: {
        ...ix,
        ...(ix.lidx && !plain(ix.lidx) ? { lidx: bound(ix.lidx, atLeast(ix.lidx, 1, 1)) } : {}),
        ...(ix.uidx && !plain(ix.uidx) ? { uidx: bound(ix.uidx, atLeast(ix.uidx, 0, 0)) } : {}),
      },
    };
  });
  return changed ? out : undefined;
}
