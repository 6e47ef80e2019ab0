/**
 * Statements with a parameter where PostgreSQL's meaning needs a constant (pg/param-values.ts:
 * `to_char(ts, $1)`, `round(x, $1)`). At Parse the statement is planned with a stand-in constant
 * there, which says the parameters' types and the result's columns; at Bind the client's values are
 * written into the text and that text is planned as any other (the session's statement cache keeps
 * one plan per distinct text, within its bound). Psycopg 3 and SQLAlchemy 2 bind such values on the
 * server; psycopg2 writes them into the text itself.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { OID } from '../pg/oids.js';
import { quoteLiteral } from '../quote.js';
import { mapSegments, replaceParams } from '../text/split.js';
import type { NeededValue } from '../pg/param-values.js';
import { rewriteForDuckDBDetailed } from '../pg/rewrite.js';
import { sharedPlan } from './comment-sharing.js';
import { disposeStatement, type PreparedStmt } from './plan.js';

/**
 * Parameters of type numeric, declared by the client (Parse, `PREPARE p(numeric)`) or by the text
 * (`$1::numeric`): planned with their values. PostgreSQL's numeric rules hang on a value's own scale,
 * which a DuckDB prepare without the value cannot know: it types the parameter by the other operand
 * (`round($1 * 1, 2)` rounded 0.333 as an integer, 0.00; `round(count(*) / $1, 1)` 27.0 for 26.7) and
 * divides a DECIMAL in double precision. Written in as `CAST('0.333' AS numeric)`, the value is a
 * numeric constant the rewrite reads as PostgreSQL does (new-user review, session 49).
 */
/** Declared types whose value cast to numeric in the text (`$1::numeric` of psycopg 3's int) is the same numeric constant. */
const WRITTEN_AS_NUMERIC: ReadonlySet<number> = new Set([0, OID.unknown, OID.int2, OID.int4, OID.int8]);

/**
 * A numeric value as the text's constant: `+ 0` keeps its scale and makes it an expression, so a bare
 * parameter as a select item is still named `?column?` as PostgreSQL names `$1` (a cast would name it `numeric`).
 */
const numericConstant = (literal: string) => `(CAST(${literal} AS numeric) + 0)`;

/** A numeric parameter's stand-in at Parse. */
export const NUMERIC_STAND_IN = numericConstant("'1'");

export function numericParams(sql: string, declaredTypes: readonly number[], count: number): Map<number, NeededValue> {
  const textual = count > 0 && sql.includes('numeric') ? textTypedParams(sql) : undefined;
  const needed = new Map<number, NeededValue>();
  for (let n = 1; n <= count; n++)
    if (
      declaredTypes[n - 1] === OID.numeric ||
      (textual?.get(n) === OID.numeric && WRITTEN_AS_NUMERIC.has(declaredTypes[n - 1] ?? 0))
    )
      needed.set(n, { oid: OID.numeric, standIn: NUMERIC_STAND_IN });
  return needed;
}

/**
 * Parameters of type interval, declared by the client (psycopg 3's timedelta) or by the text
 * (`$1::interval`), when the statement holds another interval (a parameter or a constant): planned
 * with their values. DuckDB takes two intervals equal by value (`'1 mon'`, `'30 days'`) for one
 * expression, its prepared parameters included; written in as constants, the rewrite keeps them
 * apart (pg/interval-spellings.ts).
 */
export function intervalParams(sql: string, declaredTypes: readonly number[], count: number): Map<number, NeededValue> {
  const needed = new Map<number, NeededValue>();
  if (count === 0) return needed;
  // strings and comments blanked: `interval '1 day'` is `interval ''`
  const code = mapSegments(sql, (kind, text) => (kind === 'code' ? text : kind === 'comment' ? ' ' : "''"));
  const textual = new Set([...code.matchAll(INTERVAL_PARAM)].map((m) => Number(m[1] ?? m[2])));
  let declaredOnly = 0;
  for (let n = 1; n <= count; n++) {
    const declared = declaredTypes[n - 1] === OID.interval;
    if (declared && !textual.has(n)) declaredOnly++;
    if (declared || textual.has(n)) needed.set(n, { oid: OID.interval, standIn: "CAST('1 second' AS interval)" });
  }
  const intervals = [...code.matchAll(/\binterval\b/gi)].length + declaredOnly;
  return needed.size > 0 && intervals >= 2 ? needed : new Map();
}

/** `$n::interval`, `CAST($n AS interval)` */
const INTERVAL_PARAM = /\$(\d+)\s*::\s*interval\b|\bcast\s*\(\s*\$(\d+)\s+as\s+interval\b/gi;

/** The parameters the text casts (`$1::numeric`), as the rewrite reads them; none when it refuses the text (planning says why). */
function textTypedParams(sql: string): ReadonlyMap<number, number> | undefined {
  try {
    return rewriteForDuckDBDetailed(sql).paramOids;
  } catch {
    return undefined;
  }
}

/**
 * The text with the parameters in `needed` replaced by stand-ins and the others renumbered
 * $1…$m in order; `numbers[k]` is the original number of the new $k+1.
 */
export function standInText(
  sql: string,
  needed: ReadonlyMap<number, NeededValue>,
  count: number,
): { text: string; numbers: number[] } {
  const numbers: number[] = [];
  const renumbered = new Map<number, number>();
  for (let n = 1; n <= count; n++)
    if (!needed.has(n)) {
      numbers.push(n);
      renumbered.set(n, numbers.length);
    }
  const text = replaceParams(sql, (n) => {
    const standIn = needed.get(n)?.standIn;
    if (standIn !== undefined) return standIn;
    const to = renumbered.get(n);
    return to === undefined ? undefined : `$${to}`;
  });
  return { text, numbers };
}

const UNTYPED: ReadonlySet<number> = new Set([0, OID.unknown, OID.text, OID.varchar]);

/**
 * The statement's text with each parameter's value written in as a constant of its type (`texts`:
 * each value in PostgreSQL's text form, null for NULL): `CAST('2' AS smallint)`, which the rewrite
 * reads as a constant; an untyped or text value as a string constant. A type with no name here is refused.
 */
export function valuesText(sql: string, paramOids: readonly number[], texts: readonly (string | null)[]): string {
  return replaceParams(sql, (n) => {
    if (n < 1 || n > texts.length) return undefined;
    const value = texts[n - 1]!;
    const oid = paramOids[n - 1] ?? 0;
    if (UNTYPED.has(oid))
      return oid !== 0 && oid !== OID.unknown && value === null ? 'CAST(NULL AS text)' : quoteLiteral(value);
    const type = TYPE_NAMES.get(oid);
    if (!type)
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `a parameter of type OID ${oid} in a statement planned with its values is not supported by fdl-gateway`,
        undefined,
        'Bind it as text, or write the value into the statement.',
      );
    // quoteLiteral(null) is NULL
    return oid === OID.numeric ? numericConstant(quoteLiteral(value)) : `CAST(${quoteLiteral(value)} AS ${type})`;
  });
}

const TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [OID.int2, 'smallint'],
  [OID.int4, 'integer'],
  [OID.int8, 'bigint'],
  [OID.numeric, 'numeric'],
  [OID.float4, 'real'],
  [OID.float8, 'double precision'],
  [OID.bool, 'boolean'],
  [OID.date, 'date'],
  [OID.timestamp, 'timestamp'],
  [OID.timestamptz, 'timestamptz'],
  [OID.time, 'time'],
  [OID.interval, 'interval'],
  [OID.uuid, 'uuid'],
]);

/**
 * The plan of a text with values written in (`planned`, the caller's reference), answering with the
 * column names the statement was described with at Parse (`described`), as PostgreSQL names them
 * there: a value written as `CAST('2' AS integer)` names a bare `$2` `int4`, where PostgreSQL says
 * `?column?`. A plan of its own sharing `planned`'s DuckDB statement (comment-sharing.ts), as the
 * planned one may be kept in the statement cache for others.
 */
export function withParseNames(planned: PreparedStmt, described: PreparedStmt): PreparedStmt {
  const names = described.fields?.map((f) => f.name);
  const fields = planned.fields;
  if (planned.stmt.kind !== 'query' || !names || !fields || names.length !== fields.length) return planned;
  if (fields.every((f, i) => f.name === names[i])) return planned;
  // shares the DuckDB statement's owner, never a plan that itself shares one
  const owner = planned.sharedFrom ?? planned;
  if (owner !== planned) {
    owner.refs++;
    disposeStatement(planned);
  }
  const renamed = sharedPlan(owner, planned.sql, planned.stmt);
  // a text running its shape's plan keeps its constants (constant-sharing.ts)
  if (planned.constants)
    Object.assign(renamed, {
      constants: planned.constants,
      paramOids: planned.paramOids,
      declaredTypes: planned.declaredTypes,
      cacheableSql: planned.cacheableSql,
    });
  renamed.fields = fields.map((f, i) => ({ ...f, name: names[i]! }));
  return renamed;
}
