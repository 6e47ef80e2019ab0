/**
 * Ceilings on nesting for the built-ins that walk a JSON value by recursion on the thread's stack:
 * `json_structure` of 100,000 nested `[` overflowed it and the whole process died (SIGSEGV, every
 * session of every repository dropped), and so did `json_contains`, and `json_transform`/`from_json`
 * given a deeply nested structure (the type is built when the call is bound). Found by calling every
 * function of `duckdb_functions()` with deeply nested arguments, each call in a child process
 * (bench/deep-nesting-sweep.ts; the list in docs/security.md, "Deep nesting"). DuckDB's JSON reader
 * itself holds (json_valid, ::JSON, json_extract … of a million levels answer).
 *
 * Installed like the other value guards: a temporary macro of the same name per session connection
 * checks each JSON argument's depth and only then calls `system.main`'s built-in; over
 * MAX_JSON_DEPTH the call fails 54001 (duckdb-errors.ts maps NESTING_LIMIT_PHRASE). The check holds
 * for constants, per-row values and parameters alike, since it is part of the expression DuckDB runs.
 * A structure argument must be constant when the call is bound, so its check wraps the argument:
 * DuckDB folds it while binding, and the error is raised before the type is built.
 *
 * The depth is exact and found in linear time: a text of at most 2 × MAX_JSON_DEPTH bytes cannot nest
 * deeper (each level takes two brackets); a longer one has its strings removed, is reduced to its
 * brackets (`{}` read as `[]`) and must fully match the RE2 pattern of brackets balanced to at most
 * MAX_JSON_DEPTH levels (one DFA pass). A text that fails to match is refused only if it is valid
 * JSON, so a malformed text still gets the built-in's own error.
 */
import { growthRefusal, jsonTransformGrows } from './growth-guards.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Deepest JSON a guarded function is given. RE2 refuses a pattern nested deeper than 1,000 groups. */
export const MAX_JSON_DEPTH = 1000;
/** The phrase duckdb-errors.ts maps to 54001. */
export const NESTING_LIMIT_PHRASE = "exceeds the gateway's nesting limit";

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

/** RE2: brackets balanced to at most `depth` levels, built inside out. */
function balancedWithin(depth: number): string {
  let pattern = '';
  for (let i = 0; i < depth; i++) pattern = `(?:\\[${pattern}\\])*`;
  return pattern;
}

const BALANCED = ql(balancedWithin(MAX_JSON_DEPTH));
/** A JSON string (the reader allows no other quoting), newlines included. */
const JSON_STRING = ql('(?s)"(?:[^"\\\\]|\\\\.)*"');

/** True when the JSON text `text` (a VARCHAR expression, named twice) nests deeper than MAX_JSON_DEPTH. */
function tooDeep(text: string): string {
  const stripped = sys('regexp_replace', [text, JSON_STRING, "''", "'g'"]);
  const brackets = `translate(${sys('regexp_replace', [stripped, ql('[^\\[\\]{}]'), "''", "'g'"])}, '{}', '[]')`;
  return `(strlen(${text}) > ${2 * MAX_JSON_DEPTH} AND NOT ${sys('regexp_full_match', [brackets, BALANCED])})`;
}

const refusalText = (name: string) =>
  `${name}: a JSON value nested more than ${MAX_JSON_DEPTH} levels deep ${NESTING_LIMIT_PHRASE}`;
const refusal = (name: string) => ql(refusalText(name));

/**
 * A structure argument `arg` (a macro parameter), or when it nests too deep a structure naming the
 * refusal as a type, which the built-in's bind rejects with the refusal's words in its message.
 * (error() is volatile: a CASE holding it is not constant, and the built-in would refuse it.)
 */
function checkedStructure(name: string, arg: string): string {
  return `CASE WHEN ${tooDeep(arg)} THEN ${ql(`"${refusalText(name)}"`)} ELSE ${arg} END`;
}

/**
 * A guard macro whose JSON arguments at `deep` (0-based) are checked: values by a CASE around the
 * call, structures (bound as constants) by the check in place of the argument.
 */
function guard(name: string, arity: number, deep: number[], structure = false): string {
  const params = Array.from({ length: arity }, (_, i) => `a${i + 1}`);
  if (structure) {
    // A structure with a list lists the text's elements: held to the growth rule (growth-guards.ts).
    const args = params.map((p, i) => (deep.includes(i) ? checkedStructure(name, p) : p));
    const grows = jsonTransformGrows(params[0]!, params[1]!);
    return `CREATE OR REPLACE TEMP MACRO ${qi(name)}(${params.join(', ')}) AS CASE WHEN ${grows} THEN error(${growthRefusal(name)}) ELSE ${sys(name, args)} END`;
  }
  const over = deep.map((i) => {
    const text = `${params[i]!}::VARCHAR`;
    return `(${tooDeep(text)} AND ${sys('json_valid', [text])})`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}(${params.join(', ')}) AS CASE WHEN ${over.join(' OR ')} THEN error(${refusal(name)}) ELSE ${sys(name, params)} END`;
}

/** The guarded functions, for admission's count of argument copies (value-guards.ts GUARD_ARGUMENT_COPIES). */
export const NESTING_GUARD_COPIES: Readonly<Record<string, readonly number[]>> = {
  json_structure: [4],
  json_contains: [4, 4],
  json_transform: [2, 5],
  json_transform_strict: [2, 5],
  from_json: [2, 5],
  from_json_strict: [2, 5],
};

/** The statements that install the nesting guards on a connection. */
export function nestingGuardStatements(): string[] {
  return [
    guard('json_structure', 1, [0]),
    guard('json_contains', 2, [0, 1]),
    ...['json_transform', 'json_transform_strict', 'from_json', 'from_json_strict'].map((name) =>
      guard(name, 2, [1], true),
    ),
  ];
}
