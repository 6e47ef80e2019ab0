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
  justify_days: 'No DuckDB equivalent: compute months and days with date_part().',
  justify_hours: 'No DuckDB equivalent: compute days and hours with date_part().',
  justify_interval: 'No DuckDB equivalent: compute the parts with date_part().',
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

export function undefinedFunction(name: string): SqlError {
  const hint =
    INSTEAD[name] ??
    'No function of this name exists in fdl-gateway (PostgreSQL 15 built-ins that DuckDB lacks are listed in docs/compatibility.md).';
  return new SqlError(SQLSTATE.undefinedFunction, `function ${name}() does not exist`, undefined, hint);
}
