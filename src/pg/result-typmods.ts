/**
 * Which result columns keep a numeric's declared precision and scale in RowDescription, as PostgreSQL's
 * exprTypmod decides: a column read as it is, a cast to numeric(p,s), and a CASE, COALESCE or scalar
 * subquery of those; any other expression (`sum(x)`, `x * 2`, `round(x, 2)`, a literal) is numeric
 * with typmod -1, where DuckDB's DECIMAL(p,s) of it had been sent as a typmod of its own.
 *
 * Read from DuckDB's parse of the client's text (analysis/analysis.ts), item by item of the top-level
 * select list; a set operation keeps a position's typmod only where every branch does.
 */
type Node = Record<string, any>;

/** Per top-level select item: whether its typmod is kept, or 'star' (table columns, kept). */
export type KeptTypmod = boolean | 'star';

/** DuckDB's spelling of a bare `numeric`/`decimal` (no precision): DECIMAL(18,3). PostgreSQL's typmod is then -1. */
const BARE_NUMERIC = { width: 18, scale: 3 };

export function figureKeptTypmods(node: Node | undefined): KeptTypmod[] | undefined {
  if (node?.type === 'SET_OPERATION_NODE') {
    const [l, r] = [figureKeptTypmods(node.left as Node), figureKeptTypmods(node.right as Node)];
    if (!l || !r || l.length !== r.length) return undefined;
    return l.map((k, i) => (k === 'star' || r[i] === 'star' ? k === r[i] : k && (r[i] as boolean)));
  }
  if (node?.type !== 'SELECT_NODE' || !Array.isArray(node.select_list)) return undefined;
  return (node.select_list as Node[]).map((item) => (item.class === 'STAR' ? 'star' : keeps(item)));
}

function keeps(e: Node | undefined): boolean {
  switch (e?.class) {
    case 'COLUMN_REF':
      return true;
    case 'CAST': {
      const t = e.cast_type as Node | undefined;
      if (t?.id !== 'DECIMAL') return false;
      const info = (t.type_info ?? {}) as Node;
      return !(info.width === BARE_NUMERIC.width && info.scale === BARE_NUMERIC.scale);
    }
    case 'CASE': {
      const results = [...((e.case_checks ?? []) as Node[]).map((c) => c.then_expr as Node), e.else_expr as Node];
      return results.every((r) => isNullConstant(r) || keeps(r)) && !results.every(isNullConstant);
    }
    case 'OPERATOR':
      return (
        e.type === 'OPERATOR_COALESCE' && Array.isArray(e.children) && (e.children as Node[]).every((c) => keeps(c))
      );
    case 'SUBQUERY': {
      if (e.subquery_type !== 'SCALAR') return false;
      const kept = figureKeptTypmods((e.subquery as Node | undefined)?.node as Node | undefined);
      return kept?.length === 1 && kept[0] === true;
    }
    default:
      return false;
  }
}

/** A CASE without ELSE (DuckDB's parse: ELSE NULL) takes its type and typmod from its THEN branches alone. */
const isNullConstant = (e: Node | undefined): boolean =>
  e?.class === 'CONSTANT' && (e.value as Node | undefined)?.is_null === true;

/** Per result column (a star expanded to the columns around it), whether its typmod is kept; null when unsure. */
export function keptTypmodsFor(kept: readonly KeptTypmod[] | undefined, columns: number): boolean[] | null {
  if (!kept) return null;
  const stars = kept.filter((k) => k === 'star').length;
  if (stars > 1 || (stars === 0 && kept.length !== columns) || (stars === 1 && columns < kept.length - 1)) return null;
  const out: boolean[] = [];
  for (const k of kept) {
    if (k !== 'star') out.push(k);
    else for (let i = 0; i < columns - (kept.length - 1); i++) out.push(true);
  }
  return out;
}
