/**
 * The catalog's regproc columns (pg_type.typinput, pg_proc.prosupport, pg_aggregate.aggtransfn …):
 * held as function OIDs so joins to pg_proc.oid work, shown and cast to text as PostgreSQL's regproc
 * output — the function's name, `-` for none — so `typinput::text = 'array_in'` and Rails' type map
 * (`t.typinput` read as text) see what PostgreSQL answers.
 */
import { PG_CATALOG_ATTRIBUTES } from './catalog/pg-attributes.js';
import { COMPAT_RELATIONS } from './catalog/install.js';
import { compat, names, typedAs, type Node } from './rewrite-nodes.js';

const REGPROC = 24;
/** Column names of type regproc in the emulated pg_catalog relations (each name belongs to one catalog). */
const REGPROC_COLUMNS: ReadonlySet<string> = new Set(
  PG_CATALOG_ATTRIBUTES.filter((a) => a[2] === REGPROC).map((a) => a[1]),
);

/** Whether a parse tree reads a pg_catalog relation the emulation serves (only then is `typinput` the catalog's). */
export function readsCatalog(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(readsCatalog);
  if (!node || typeof node !== 'object') return false;
  const rv = (node as Node).RangeVar as Node | undefined;
  if (
    rv &&
    (rv.schemaname === undefined || rv.schemaname === 'pg_catalog') &&
    COMPAT_RELATIONS.pgCatalog.has(rv.relname)
  )
    return true;
  return Object.values(node).some(readsCatalog);
}

/** Whether `n` is a plain reference to a regproc catalog column. */
export function isRegprocColumn(n: Node | undefined): boolean {
  const fields = n?.ColumnRef?.fields as Node[] | undefined;
  const last = fields ? names(fields).slice(-1)[0] : undefined;
  return last !== undefined && REGPROC_COLUMNS.has(last);
}

/** The function's name, as regproc's output function prints it. */
export function regprocName(col: Node): Node {
  return compat('_regproc_name', [col]);
}

/**
 * A regproc column as a select-list item: sent as regproc (24), its name as text and its OID in binary;
 * the OID first, so an ORDER BY of the item orders by OID as PostgreSQL does. NULL stays NULL (outer joins).
 */
export function shownRegproc(col: Node): Node {
  const pair: Node = {
    FuncCall: {
      funcname: [{ String: { sval: 'struct_pack' } }],
      args: [
        { NamedArgExpr: { arg: col, name: 'oid', argnumber: -1 } },
        { NamedArgExpr: { arg: regprocName(col), name: 'name', argnumber: -1 } },
      ],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
  const isNull: Node = { NullTest: { arg: col, nulltesttype: 'IS_NULL' } };
  return typedAs('regproc', {
    CaseExpr: { args: [{ CaseWhen: { expr: isNull, result: { A_Const: { isnull: true } } } }], defresult: pair },
  });
}
