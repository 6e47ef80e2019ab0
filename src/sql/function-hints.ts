/**
 * A function neither DuckDB nor the catalog emulation has: PostgreSQL's 42883 "does not exist" (not a
 * permission error, which made users think they lacked a grant), with what to write instead where
 * DuckDB has an equivalent under another name or shape.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** PostgreSQL function → what to use through fdl-gateway (DuckDB's spelling). */
const INSTEAD: Readonly<Record<string, string>> = {
  to_char: "Use strftime(value, format) with DuckDB's format codes (strftime(d, '%Y-%m-%d')).",
  to_date: "Use strptime(text, format)::date with DuckDB's format codes (strptime('05 Dec 2000', '%d %b %Y')).",
  to_number: 'Use CAST(text AS numeric), after removing separators with replace().',
  initcap: "Use upper(left(s, 1)) || lower(substr(s, 2)) for one word; DuckDB has no initcap.",
  json_agg: 'Use to_json(list(value)) or json_group_array(value).',
  jsonb_agg: 'Use to_json(list(value)) or json_group_array(value).',
  json_object_agg: 'Use json_group_object(key, value).',
  jsonb_object_agg: 'Use json_group_object(key, value).',
  width_bucket: 'Use least(greatest(floor((x - low) / (high - low) * n) + 1, 0), n + 1).',
  date_bin: 'Use time_bucket(stride, timestamp, origin).',
  justify_days: 'No DuckDB equivalent: compute months and days with date_part().',
  justify_hours: 'No DuckDB equivalent: compute days and hours with date_part().',
  justify_interval: 'No DuckDB equivalent: compute the parts with date_part().',
  encode: "Use base64(blob) or hex(blob); to_base64/hex take a blob ('text'::blob).",
  decode: 'Use from_base64(text) or unhex(text).',
  regexp_match: 'Use regexp_extract(s, pattern) (one group) or regexp_extract_all(s, pattern).',
  array_position: 'Use list_position(list, value).',
  pg_size_pretty: "Use format_bytes(bytes) (DuckDB's units: KiB, MiB).",
  to_hex: 'Use hex(value) (upper case) or lower(hex(value)).',
};

export function undefinedFunction(name: string): SqlError {
  const hint = INSTEAD[name] ?? 'No function of this name exists in fdl-gateway (PostgreSQL 15 built-ins that DuckDB lacks are listed in docs/compatibility.md).';
  return new SqlError(SQLSTATE.undefinedFunction, `function ${name}() does not exist`, undefined, hint);
}
