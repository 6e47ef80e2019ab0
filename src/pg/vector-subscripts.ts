/**
 * The catalog's int2vector and oidvector columns (pg_index.indkey, pg_proc.proargtypes, …) are arrays whose
 * subscripts start at 0 in PostgreSQL (`proargtypes[0]` is the first argument's type); the emulation holds them as
 * DuckDB lists, whose subscripts start at 1. A subscript of such a column, in a text that reads a catalog relation,
 * is moved up by one before PostgreSQL's bounds are given it (array-subscripts.ts); a slice comes back as an ordinary
 * array from 1, as PostgreSQL's does.
 */
import { PG_CATALOG_ATTRIBUTES } from './catalog/pg-attributes.js';
import { names, type Node } from './rewrite-nodes.js';

const INT2VECTOR = 22;
const OIDVECTOR = 30;
/** Column names of type int2vector or oidvector in the emulated pg_catalog relations. */
const VECTOR_COLUMNS: ReadonlySet<string> = new Set(
  PG_CATALOG_ATTRIBUTES.filter((a) => a[2] === INT2VECTOR || a[2] === OIDVECTOR).map((a) => a[1]),
);

/** Whether `n` is a plain reference to a vector catalog column. */
export function isVectorColumn(n: Node | undefined): boolean {
  const fields = n?.ColumnRef?.fields as Node[] | undefined;
  const last = fields ? names(fields).slice(-1)[0] : undefined;
  return last !== undefined && VECTOR_COLUMNS.has(last);
}

/** `x + 1`, folded when x is an integer constant. */
function nextOf(x: Node): Node {
  const c = x.A_Const as Node | undefined;
  if (c && !c.isnull && c.ival !== undefined) {
    const next = Number(c.ival.ival ?? 0) + 1;
    return { A_Const: { ival: next === 0 ? {} : { ival: next } } };
  }
  return {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [{ String: { sval: '+' } }],
      lexpr: x,
      rexpr: { A_Const: { ival: { ival: 1 } } },
    },
  };
}

/** The first subscript step of a vector column moved from PostgreSQL's base 0 to DuckDB's base 1; the others (a vector has one dimension) as they are. */
export function fromBaseZero(steps: Node[]): Node[] {
  const [first, ...rest] = steps;
  const ix = first?.A_Indices as Node | undefined;
  if (!ix) return steps;
  return [
    {
      A_Indices: {
        ...ix,
        ...(ix.lidx ? { lidx: nextOf(ix.lidx as Node) } : {}),
        ...(ix.uidx ? { uidx: nextOf(ix.uidx as Node) } : {}),
      },
    },
    ...rest,
  ];
}
