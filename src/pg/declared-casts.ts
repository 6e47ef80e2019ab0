/**
 * A parameter's type declared in Parse (or `PREPARE p(float8)`) written into the text the rewrite
 * reads, as `($n::float8)`: as a client would write it, which is what the rewrite and its pre-check
 * read. The rewrite gives PostgreSQL's meaning by what the text says a value is, and a declared type
 * is not in the text; PostgreSQL resolves the statement with it. So `$1::numeric(10,2)` of a float8
 * 1.005 rounds its float8out text (1.01, not DuckDB's 1.00 from the binary value), a float4
 * `$1 > 0.1` compares in float8, `$1 - $2` of two dates is int4, a bare jsonb `$1` is sent as jsonb,
 * and a bpchar `name = $1` ignores the value's trailing spaces. The column names are still the
 * client's text's (planner.ts): `select $1` stays `?column?`.
 */
import { replaceParams } from '../text/split.js';
import { OID } from './oids.js';

/** Declared types whose PostgreSQL meaning the rewrite gives by a written cast, by their spelling. */
const WRITTEN: ReadonlyMap<number, string> = new Map([
  [OID.float4, 'float4'],
  [OID.float8, 'float8'],
  [OID.date, 'date'],
  [OID.jsonb, 'jsonb'],
  [OID.bpchar, 'bpchar'],
]);

/**
 * Declared text and json, written where the text reads jsonb: `$1::jsonb` of a varchar (pgjdbc's setString)
 * is then a computed value's jsonb (jsonb-values.ts), where an undeclared or jsonb one is in jsonb's normal
 * form already (the wire's input).
 */
const WRITTEN_BESIDE_JSONB: ReadonlyMap<number, string> = new Map([
  [OID.text, 'text'],
  [OID.varchar, 'varchar'],
  [OID.json, 'json'],
]);

/**
 * Declared text and varchar, written where the text reads a timestamp: `$1::timestamptz` of a varchar (pgjdbc's
 * setString) is then a text value's timestamp, read as PostgreSQL reads it (rewrite-casts.ts; `'… 00:00+03'` was 22007).
 */
const WRITTEN_BESIDE_TIMESTAMP: ReadonlyMap<number, string> = new Map([
  [OID.text, 'text'],
  [OID.varchar, 'varchar'],
]);

/** A cast to timestamp or timestamptz. */
const READS_TIMESTAMP = /::\s*(?:"?pg_catalog"?\.)?"?timestamp|\bas\s+(?:"?pg_catalog"?\.)?"?timestamp/i;

/**
 * Declared types whose text PostgreSQL writes otherwise than DuckDB (`t`, `{1,2}`, `\x00ff`), written where the
 * text reads a value's text (`$1::text`, concat, format, `||`): the rewrite then writes it as PostgreSQL does.
 */
const WRITTEN_BESIDE_TEXT: ReadonlyMap<number, string> = new Map([
  [OID.bool, 'bool'],
  [OID.bytea, 'bytea'],
  [1000, 'bool[]'],
  [1005, 'int2[]'],
  [1007, 'int4[]'],
  [1016, 'int8[]'],
  [1009, 'text[]'],
  [1015, 'varchar[]'],
  [1021, 'float4[]'],
  [1022, 'float8[]'],
]);

/** A value's text read: a cast to text or varchar, concat/concat_ws/format, `||`. */
const READS_TEXT = /::\s*(?:text|varchar)\b|\bas\s+(?:text|varchar)\s*\)|\b(?:concat|concat_ws|format)\s*\(|\|\|/i;

/** `sql` with each parameter declared as one of WRITTEN's types cast to it; `sql` itself when none is. */
export function withDeclaredCasts(sql: string, declaredTypes: readonly number[]): string {
  const besideJsonb = /jsonb/i.test(sql);
  const besideText = declaredTypes.some((t) => WRITTEN_BESIDE_TEXT.has(t)) && READS_TEXT.test(sql);
  const besideTimestamp = declaredTypes.some((t) => WRITTEN_BESIDE_TIMESTAMP.has(t)) && READS_TIMESTAMP.test(sql);
  const written = (t: number | undefined) =>
    WRITTEN.get(t ?? 0) ??
    (besideJsonb ? WRITTEN_BESIDE_JSONB.get(t ?? 0) : undefined) ??
    (besideTimestamp ? WRITTEN_BESIDE_TIMESTAMP.get(t ?? 0) : undefined) ??
    (besideText ? WRITTEN_BESIDE_TEXT.get(t ?? 0) : undefined);
  if (!declaredTypes.some((t) => written(t))) return sql;
  return replaceParams(sql, (n) => {
    const type = written(declaredTypes[n - 1]);
    return type ? `($${n}::${type})` : undefined;
  });
}
