/**
 * `SELECT * FROM a JOIN b USING (k)`: PostgreSQL lists the USING columns first, then a's other columns,
 * then b's; DuckDB keeps k in a's place (`order_id, customer_id, …` where PostgreSQL has `customer_id,
 * order_id, …`). The star is spelled as PostgreSQL orders it: the USING columns, then DuckDB's
 * COLUMNS() of every column but them. Only a plain inner, left or right join of two tables or
 * subqueries (nested joins order differently, left to DuckDB). A FULL join's COLUMNS() kept both sides'
 * k, and a NATURAL join's columns are not known here: their star is refused 0A000 with a hint.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { call, str, strConst, type Node } from './parse-nodes.js';

const JOIN_TYPES = new Set(['JOIN_INNER', 'JOIN_LEFT', 'JOIN_RIGHT']);
// Not spelled with the compat catalog's prefix: a text naming it counts as catalog emulation (rewrite.ts).
const LAMBDA_NAME = 'star_column';

/** The target list PostgreSQL's order needs, or undefined when the SELECT is not such a star. */
export function usingColumnsFirst(select: Node): Node[] | undefined {
  const targets = select.targetList as Node[] | undefined;
  const star =
    targets?.length === 1 ? (targets[0]?.ResTarget?.val?.ColumnRef?.fields as Node[] | undefined) : undefined;
  if (star?.length !== 1 || !star[0]?.A_Star) return undefined;
  const from = select.fromClause as Node[] | undefined;
  const join = from?.length === 1 ? (from[0]?.JoinExpr as Node | undefined) : undefined;
  if (!join || join.alias) return undefined;
  const using = (join.usingClause as Node[] | undefined)?.map((n) => n.String?.sval as string | undefined);
  if (join.isNatural || (using?.length && join.jointype === 'JOIN_FULL')) {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `SELECT * over a ${join.isNatural ? 'NATURAL JOIN' : 'FULL JOIN … USING'} is not supported by fdl-gateway`,
      undefined,
      'PostgreSQL lists the join columns first and DuckDB does not: name the columns in the select list, or join with ON.',
    );
  }
  if (!JOIN_TYPES.has(join.jointype) || !using?.length || using.some((u) => u === undefined)) return undefined;
  const plain = (n: Node | undefined) => !!(n?.RangeVar || n?.RangeSubselect);
  if (!plain(join.larg) || !plain(join.rarg)) return undefined;
  const column = (name: string): Node => ({ ColumnRef: { fields: [str(name)] } });
  const others: Node = {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [str('->')],
      lexpr: column(LAMBDA_NAME),
      rexpr: {
        A_Expr: {
          kind: 'AEXPR_IN',
          name: [str('<>')],
          lexpr: column(LAMBDA_NAME),
          rexpr: { List: { items: (using as string[]).map(strConst) } },
        },
      },
    },
  };
  return [
    ...(using as string[]).map((u) => ({ ResTarget: { val: column(u) } })),
    { ResTarget: { val: call('columns', [others]) } },
  ];
}
