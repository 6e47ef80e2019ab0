/**
 * A function neither DuckDB nor the catalog emulation has: PostgreSQL's 42883 "does not exist" (not a
 * permission error, which made users think they lacked a grant), with what to write instead where
 * DuckDB has an equivalent under another name or shape.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** PostgreSQL function → what to use through fdl-gateway (DuckDB's spelling). */
const INSTEAD: Readonly<Record<string, string>> = {
  json_object_agg: 'json_object_agg(key, value) takes two arguments; or use json_group_object(key, value).',
  jsonb_object_agg: "Use json_object_agg(key, value) (json's text; jsonb's normal form is not emulated).",
  jsonb_build_array: "Use json_build_array(…) (json's text; jsonb's normal form is not emulated).",
  to_jsonb: "Use to_json(x) (json's text; jsonb's normal form is not emulated).",
  encode: "Use base64(blob) or hex(blob); to_base64/hex take a blob ('text'::blob).",
  decode: 'Use from_base64(text) or unhex(text).',
  regexp_match: 'Use regexp_extract(s, pattern) (one group) or regexp_extract_all(s, pattern).',
  array_position: 'Use list_position(list, value).',
  to_hex: 'Use hex(value) (upper case) or lower(hex(value)).',
  ...Object.fromEntries(
    [
      'jsonb_path_query',
      'jsonb_path_query_first',
      'jsonb_path_query_array',
      'jsonb_path_exists',
      'jsonb_path_match',
    ].map((f) => [
      f,
      "SQL/JSON paths are not emulated: for a plain path use j -> 'a' -> 'b' or json_extract(j, '$.a.b') (no filters, no lax-mode unwrapping of arrays).",
    ]),
  ),
};

/**
 * `name` called with `args` (PostgreSQL's types, when the parse says them all: analysis.ts) at `location`
 * of `sql`: PostgreSQL's words, `function nosuch(integer, unknown) does not exist` with its hint and the
 * call's position; a function PostgreSQL has under another shape keeps its advice.
 */
export function undefinedFunction(
  name: string,
  call: { schema?: string; args?: readonly string[]; location?: number; sql?: string } = {},
): SqlError {
  const instead = INSTEAD[name];
  const quote = call.location !== undefined && call.sql !== undefined ? lineQuote(call.sql, call.location) : undefined;
  if (call.args && !instead) {
    const qualified = call.schema ? `${call.schema}.${name}` : name;
    const words = 'No function matches the given name and argument types. You might need to add explicit type casts.';
    return new SqlError(
      SQLSTATE.undefinedFunction,
      `function ${qualified}(${call.args.join(', ')}) does not exist`,
      undefined,
      quote ? `${words}\n\n${quote}` : words,
    );
  }
  const hint =
    instead ??
    'No function of this name exists in fdl-gateway (PostgreSQL 15 built-ins that DuckDB lacks are listed in docs/compatibility.md).';
  return new SqlError(SQLSTATE.undefinedFunction, `function ${name}() does not exist`, undefined, hint);
}

/** DuckDB's quote of a place in a text (`LINE n: …`, a caret under it), which the wire turns into the error's position. */
function lineQuote(sql: string, byteLocation: number): string | undefined {
  // DuckDB's locations count UTF-8 bytes
  const bytes = Buffer.from(sql);
  if (byteLocation < 0 || byteLocation >= bytes.length) return undefined;
  const location = bytes.subarray(0, byteLocation).toString().length;
  const start = sql.lastIndexOf('\n', location - 1) + 1;
  const end = sql.indexOf('\n', location);
  const line = sql.slice(start, end < 0 ? sql.length : end);
  const lineNo = sql.slice(0, start).split('\n').length;
  const head = `LINE ${lineNo}: `;
  return `${head}${line}\n${' '.repeat(head.length + location - start)}^`;
}
