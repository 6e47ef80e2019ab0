/**
 * A Bind parameter's value in PostgreSQL's text form, for a statement planned with its values
 * (session/value-plans.ts): text-format values as sent, binary numbers (numeric too), booleans, strings,
 * dates, times, timestamps, intervals and UUIDs decoded (asyncpg and psycopg 3 send these binary beside
 * `round(x, $1)`); a date/time value is written as DuckDB's text, which the statement's cast reads back exactly.
 */
import {
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeValue,
  DuckDBUUIDValue,
} from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../../errors.js';
import { decodeParam } from './params.js';

export function paramText(oid: number, format: number, raw: Buffer | null): string | null {
  if (raw === null) return null;
  if (format === 0) return raw.toString('utf8');
  const { value } = decodeParam(oid, 1, raw);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof DuckDBDecimalValue) return value.toString();
  if (
    value instanceof DuckDBDateValue ||
    value instanceof DuckDBTimestampValue ||
    value instanceof DuckDBTimestampTZValue ||
    value instanceof DuckDBTimeValue ||
    value instanceof DuckDBIntervalValue ||
    value instanceof DuckDBUUIDValue
  )
    return value.toString();
  throw new SqlError(
    SQLSTATE.featureNotSupported,
    `a binary parameter of type OID ${oid} in a statement planned with its values is not supported by fdl-gateway`,
    undefined,
    'Send the parameter in text format.',
  );
}
