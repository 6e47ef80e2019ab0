/**
 * PostgreSQL built-ins DuckDB lacks, composed from DuckDB's own functions with PostgreSQL's rules:
 * `overlay(t placing s from p [for n])` (textoverlay) and `make_interval(years … secs)`.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { call, castTo, intConst, strConst, type Node } from './parse-nodes.js';

const op = (name: string, lexpr: Node, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: name } }], lexpr, rexpr },
});

/**
 * `overlay(t placing s from p [for n])` of text: PostgreSQL's `substring(t, 1, p - 1) || s || substring(t from p + n)`,
 * n defaulting to s's length; a negative p - 1 is its 22011. NULL in, NULL out (`||`).
 */
export function overlayCall(args: Node[]): Node {
  const [t, s, p, n] = args as [Node, Node, Node, Node | undefined];
  const before = op('-', p, intConst(1));
  const head: Node = {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: op('<', before, intConst(0)),
            result: call('error', [strConst('negative substring length not allowed')]),
          },
        },
      ],
      defresult: call('substring', [t, intConst(1), before]),
    },
  };
  const tail = call('substring', [t, call('greatest', [op('+', p, n ?? call('length', [s])), intConst(1)])]);
  // text, as PostgreSQL resolves overlay(text, …): DuckDB folded a NULL placed into an INTEGER NULL
  return castTo(op('||', op('||', head, s), tail), 'varchar');
}

const INTERVAL_FIELDS = ['years', 'months', 'weeks', 'days', 'hours', 'mins', 'secs'] as const;

/**
 * `make_interval(years, months, weeks, days, hours, mins, secs)`, by position or by name (`days => 3`),
 * each 0 when not given: months, days and microseconds apart as PostgreSQL keeps them, the seconds
 * rounded to the microsecond half to even (rint).
 */
export function makeIntervalCall(args: Node[]): Node {
  const given = new Map<string, Node>();
  args.forEach((a, i) => {
    const named = a.NamedArgExpr as Node | undefined;
    const field = named ? (named.name as string) : INTERVAL_FIELDS[i];
    if (!field || !(INTERVAL_FIELDS as readonly string[]).includes(field) || given.has(field))
      throw new SqlError(
        SQLSTATE.undefinedFunction,
        'function make_interval with these arguments does not exist',
        undefined,
        'make_interval takes years, months, weeks, days, hours, mins (integers) and secs, by position or as name => value.',
      );
    given.set(field, named ? (named.arg as Node) : a);
  });
  const int = (field: string, type = 'integer') => castTo(given.get(field) ?? intConst(0), type);
  const months = op('+', op('*', int('years'), intConst(12)), int('months'));
  const days = op('+', op('*', int('weeks'), intConst(7)), int('days'));
  const secs = castTo(given.get('secs') ?? intConst(0), 'double');
  const bigint = (digits: string) => castTo({ A_Const: { fval: { fval: digits } } }, 'bigint');
  const microseconds = op(
    '+',
    op('+', op('*', int('hours', 'bigint'), bigint('3600000000')), op('*', int('mins', 'bigint'), bigint('60000000'))),
    castTo(call('round_even', [op('*', secs, castTo(intConst(1_000_000), 'double')), intConst(0)]), 'bigint'),
  );
  return op(
    '+',
    op('+', call('to_months', [castTo(months, 'integer')]), call('to_days', [castTo(days, 'integer')])),
    call('to_microseconds', [microseconds]),
  );
}
