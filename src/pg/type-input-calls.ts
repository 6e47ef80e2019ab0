/**
 * A type's input function called by name (`int4in('5')`, `numeric_in('1.5', 0, -1)`): pg_proc lists each type's
 * input function because clients join pg_type.typinput to it (ruby-pg, Rails, Sequel), and a tool that builds calls
 * from pg_proc calls them (sqlsmith: `int4in(cast(null as cstring))`). Where the type is one the gateway serves, the
 * call means the cast of its cstring argument, which PostgreSQL 15 answers with the same value and type; the
 * others (pseudo-types, whose input PostgreSQL refuses too, and types not served here) are refused 0A000 by name.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { PG_PROCS, PG_TYPES } from './catalog/pg-data.js';
import { refuse } from './pg-calls.js';
import { castTo, type Node } from './parse-nodes.js';
import { names } from './rewrite-nodes.js';

/**
 * Input functions of served types → the type a call casts to (PostgreSQL's grammar name) and its argument count.
 * Not oidin, varcharin (an oid is sent as int8 here, a varchar value as text) nor regrolein (PostgreSQL's built-in
 * roles are not listed): their calls would answer otherwise than PostgreSQL.
 */
const CAST_INPUTS: ReadonlyMap<string, readonly [type: string, nargs: 1 | 3]> = new Map([
  ['boolin', ['bool', 1]],
  ['int2in', ['int2', 1]],
  ['int4in', ['int4', 1]],
  ['int8in', ['int8', 1]],
  ['float4in', ['float4', 1]],
  ['float8in', ['float8', 1]],
  ['textin', ['text', 1]],
  ['namein', ['name', 1]],
  ['charin', ['char', 1]],
  ['byteain', ['bytea', 1]],
  ['date_in', ['date', 1]],
  ['json_in', ['json', 1]],
  ['jsonb_in', ['jsonb', 1]],
  ['uuid_in', ['uuid', 1]],
  ['regclassin', ['regclass', 1]],
  ['regtypein', ['regtype', 1]],
  ['regnamespacein', ['regnamespace', 1]],
  ['regprocin', ['regproc', 1]],
  ['regprocedurein', ['regprocedure', 1]],
  // (cstring, oid, typmod): the element type's OID is the array input's only; a typmod of -1 is the plain cast
  ['numeric_in', ['numeric', 3]],
  ['bpcharin', ['bpchar', 3]],
  ['time_in', ['time', 3]],
  ['timetz_in', ['timetz', 3]],
  ['timestamp_in', ['timestamp', 3]],
  ['timestamptz_in', ['timestamptz', 3]],
  ['interval_in', ['interval', 3]],
]);

/** Every input function pg_proc lists (each type's typinput), by name → the type it reads, as `format_type` names it. */
const LISTED_INPUTS: ReadonlyMap<string, string> = new Map(
  PG_TYPES.map((t) => [String(PG_PROCS.find((p) => p[0] === t[10])?.[1]), String(t[21])] as const),
);

/** The pre-check's words (rewrite-precheck.ts): a call of one of them by name. */
export const TYPE_INPUT_CALL = new RegExp(String.raw`\b(?:${[...LISTED_INPUTS.keys()].join('|')})\s*\(`, 'i');

const isNull = (n: Node | undefined): boolean => !!(n?.A_Const?.isnull || n?.TypeCast?.arg?.A_Const?.isnull);
const castsTo = (n: Node | undefined, type: string): boolean => names(n?.TypeCast?.typeName?.names).at(-1) === type;
/** A cstring as PostgreSQL resolves one here: an untyped string constant, or a string constant cast to cstring. */
const cstringText = (n: Node | undefined): Node | undefined =>
  n?.A_Const?.sval ? n : castsTo(n, 'cstring') && n?.TypeCast?.arg?.A_Const?.sval ? n.TypeCast.arg : undefined;
const integerConst = (n: Node | undefined): number | undefined => {
  const c = (n?.TypeCast ? n.TypeCast.arg : n)?.A_Const;
  return c?.ival ? Number(c.ival.ival ?? 0) : undefined;
};

/**
 * The call `fc` of an input function (unqualified or pg_catalog's) as the cast it performs, or undefined when `name`
 * is not a listed input function. Throws 0A000 for one of a type not served here or with a typmod, 42883 for an
 * argument that is not a cstring (PostgreSQL has no cast from a typed value to it).
 */
export function typeInputCall(name: string | undefined, fc: Node): Node | undefined {
  const reads = name === undefined ? undefined : LISTED_INPUTS.get(name);
  if (reads === undefined || fc.agg_star || fc.agg_distinct || fc.agg_order || fc.agg_filter || fc.over)
    return undefined;
  const args = (fc.args ?? []) as Node[];
  const cast = CAST_INPUTS.get(name!);
  if (!cast)
    throw refuse(
      `${name}() (the input function of type ${reads})`,
      `Of the input functions only those whose type the gateway answers as PostgreSQL does can be called (int4in('5') is '5'::int4); write a cast instead.`,
    );
  const [type, nargs] = cast;
  if (args.length !== nargs)
    throw new SqlError(SQLSTATE.undefinedFunction, `function ${name}() with ${args.length} arguments does not exist`);
  // strict, as PostgreSQL's: a NULL argument is a NULL of the type (sqlsmith's `int4in(cast(null as cstring))`)
  if (args.some(isNull)) return castTo({ A_Const: { isnull: true } }, type);
  const text = cstringText(args[0]);
  if (!text)
    throw new SqlError(
      SQLSTATE.undefinedFunction,
      `function ${name}() takes a cstring: only a string constant or CAST('…' AS cstring) is one`,
      undefined,
      `Cast the value instead: x::${type}.`,
    );
  if (nargs === 3 && (integerConst(args[1]) === undefined || integerConst(args[2]) !== -1))
    throw refuse(
      `${name}() with a type modifier other than -1`,
      `Cast the text to the type with its modifier instead: '…'::${type}(n).`,
    );
  return castTo(text, type);
}
