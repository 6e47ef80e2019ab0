/**
 * Set-returning functions in FROM as PostgreSQL reads them (rewrite-walk.ts's rangeFunction): one whose
 * DuckDB spelling is a scalar (`regexp_split_to_table` is a macro over unnest) becomes DuckDB's unnest
 * table function over the array form; the JSON-to-record functions, which need a column definition
 * list DuckDB has no syntax for, are refused with what to write instead.
 */
import { SqlError } from '../errors.js';
import { refuse } from './pg-calls.js';
import { call, compat, type Node } from './rewrite-nodes.js';
import { stringToArray } from './split-calls.js';
import { regexpSplitArgs } from './rewrite-calls.js';

/** FROM functions DuckDB has only as a scalar producing rows: their array form, unnested. */
const AS_ARRAY: Record<string, string> = { regexp_split_to_table: 'regexp_split_to_array' };

/**
 * `regexp_split_to_table(s, re[, flags])` in FROM → `unnest(regexp_split_to_array(s, re[, flags]))`,
 * `string_to_table(…)` → its rows as PostgreSQL's string_to_array splits them; else undefined.
 */
export function unnestedFromFunction(base: string, args: Node[]): Node | undefined {
  if (base === 'string_to_table') return stringToTable(args);
  if (base === 'generate_subscripts') return generateSubscripts(args);
  const array = AS_ARRAY[base];
  return array ? call(['unnest'], [call([array], regexpSplitArgs(args) ?? args)]) : undefined;
}

/**
 * `string_to_table(s, d[, null_string])`, which DuckDB lacks, in FROM or a select list: the unnest of
 * PostgreSQL's string_to_array (no row of '', characters for a NULL delimiter, the whole string for an
 * empty one, fields equal to null_string NULL).
 */
export function stringToTable(args: Node[]): Node | undefined {
  if (args.length === 2) return call(['unnest'], [stringToArray(args[0]!, args[1]!)]);
  if (args.length === 3) return call(['unnest'], [compat('_pgsem_string_to_array', args)]);
  return undefined;
}

/**
 * `generate_subscripts(a, dim[, reverse])`, which DuckDB has only in a select list (its subscripts bigint) and
 * not in FROM: the unnest of 1 … array_length(a, dim), integer as PostgreSQL's, reversed where asked.
 */
export function generateSubscripts(args: Node[]): Node | undefined {
  if (args.length !== 2 && args.length !== 3) return undefined;
  const subscripts: Node = {
    TypeCast: {
      arg: call(
        ['generate_series'],
        [{ A_Const: { ival: { ival: 1 } } }, call(['array_length'], [args[0]!, args[1]!])],
      ),
      typeName: { names: [{ String: { sval: 'int4' } }], typemod: -1, arrayBounds: [{ Integer: { ival: -1 } }] },
    },
  };
  const ordered =
    args.length === 3
      ? {
          CaseExpr: {
            args: [{ CaseWhen: { expr: args[2]!, result: call(['list_reverse'], [subscripts]) } }],
            defresult: subscripts,
          },
        }
      : subscripts;
  return call(['unnest'], [ordered]);
}

const JSON_TO_RECORDS = new Set([
  'json_to_record',
  'json_to_recordset',
  'jsonb_to_record',
  'jsonb_to_recordset',
  'json_populate_record',
  'json_populate_recordset',
  'jsonb_populate_record',
  'jsonb_populate_recordset',
]);

/** The refusal of a JSON-to-record function (0A000 with a hint), or undefined for any other name. */
export function jsonToRecordRefused(base: string): SqlError | undefined {
  if (!JSON_TO_RECORDS.has(base)) return undefined;
  return refuse(
    `${base}()`,
    base.endsWith('set')
      ? "Read each element's fields with ->>: SELECT (e ->> 'a')::int AS a FROM unnest(CAST(j AS JSON[])) AS t(e)."
      : "Read the fields with ->>: SELECT (j ->> 'a')::int AS a.",
  );
}

/**
 * `unnest(a, b, …)` in FROM, which DuckDB's unnest table function does not take: PostgreSQL zips the arrays,
 * the shorter padded with NULLs, as DuckDB's unnest does in a select list. A lateral subquery of one unnest
 * a column, named as PostgreSQL names them (`unnest` each, the alias' column names first), then `ordinality`
 * (bigint, up to the longest array's length).
 */
export function zippedUnnest(args: Node[], rf: Node): Node {
  const items = args.map((a) => call(['unnest'], [a]));
  if (rf.ordinality)
    items.push(
      call(
        ['unnest'],
        [
          call(
            ['generate_series'],
            [
              { A_Const: { ival: { ival: 1 } } },
              { MinMaxExpr: { op: 'IS_GREATEST', args: args.map((a) => call(['len'], [a])) } },
            ],
          ),
        ],
      ),
    );
  const alias = rf.alias as Node | undefined;
  const written = ((alias?.colnames ?? []) as Node[]).map((n) => String(n?.String?.sval));
  if (written.length > items.length)
    throw new SqlError(
      '42P10',
      `table "${alias?.aliasname ?? 'unnest'}" has ${items.length} columns available but ${written.length} columns specified`,
    );
  const columns = [...args.map(() => 'unnest'), ...(rf.ordinality ? ['ordinality'] : [])].map(
    (c, i) => written[i] ?? c,
  );
  return {
    RangeSubselect: {
      lateral: true,
      subquery: {
        SelectStmt: {
          targetList: items.map((val, i) => ({ ResTarget: { name: columns[i], val } })),
          limitOption: 'LIMIT_OPTION_DEFAULT',
          op: 'SETOP_NONE',
        },
      },
      // (the column names given only where the alias names some: DuckDB renames a repeated one, `unnest_1`)
      alias: {
        aliasname: alias?.aliasname ?? 'unnest',
        ...(written.length > 0 ? { colnames: columns.map((c) => ({ String: { sval: c } })) } : {}),
      },
    },
  };
}
