/**
 * string_to_array(s, d) and split_part(s, d, n) with PostgreSQL's edge cases, around DuckDB's own
 * functions (whose cost guards see them as written): DuckDB split '' into one empty element
 * (`{""}`, PostgreSQL `{}`), split on an empty delimiter into characters (PostgreSQL keeps the whole
 * string: `{abc}`, split_part('abc', '', 1) `abc`) and answered '' for field position 0 (PostgreSQL 22023).
 */
import { call, intConst, strConst, type Node } from './parse-nodes.js';

const when = (expr: Node, result: Node): Node => ({ CaseWhen: { expr, result } });
const isNull = (arg: Node): Node => ({ NullTest: { arg, nulltesttype: 'IS_NULL' } });
const eq = (lexpr: Node, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '=' } }], lexpr, rexpr },
});
const caseOf = (args: Node[], defresult: Node): Node => ({ CaseExpr: { args, defresult } });
const nullConst: Node = { A_Const: { isnull: true } };

/** string_to_array(s, d): NULL of NULL, {} of '', characters for a NULL delimiter, {s} for an empty one. */
export function stringToArray(s: Node, d: Node): Node {
  const split = (delim: Node) => call('string_to_array', [s, delim]);
  return caseOf(
    [
      when(isNull(s), nullConst),
      // An empty list of the split's own type (VARCHAR[]).
      when(eq(s, strConst('')), call('list_slice', [split(strConst(',')), intConst(1), intConst(0)])),
      when(isNull(d), split(strConst(''))),
      when(eq(d, strConst('')), call('list_value', [s])),
    ],
    split(d),
  );
}

/** split_part(s, d, n): field 0 is an error; with an empty delimiter the whole string is field 1 (and -1). */
export function splitPart(s: Node, d: Node, n: Node): Node {
  return caseOf(
    [
      when(eq(n, intConst(0)), call('error', [strConst('field position must not be zero')])),
      when(
        eq(d, strConst('')),
        caseOf(
          [
            when(
              {
                A_Expr: {
                  kind: 'AEXPR_IN',
                  name: [{ String: { sval: '=' } }],
                  lexpr: n,
                  rexpr: { List: { items: [intConst(1), intConst(-1)] } },
                },
              },
              s,
            ),
          ],
          strConst(''),
        ),
      ),
    ],
    call('split_part', [s, d, n]),
  );
}
