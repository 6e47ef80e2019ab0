/**
 * PostgreSQL anonymous records (`row(1, 'a')`, `(1, 'x', null)`): the rewrite builds them as DuckDB
 * structs whose fields are named f1…fn, PostgreSQL's own names for a record's columns
 * (sql/compat/pg-calls.ts), and they are sent as record (2249) in record_out's text and
 * record_send's binary form.
 */
import type { DuckDBStructType, DuckDBStructValue, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { Writer } from '../writer.js';
import { OID, pgFieldFor } from '../../pg/oids.js';
import type { EncodeSettings, ValueEncoder } from './values.js';

/** record_out quotes a field that is empty or holds a quote, backslash, parenthesis, comma or space. */
const NEEDS_QUOTES = /^$|["\\(),\s]/;

export function recordEncoder(
  t: DuckDBStructType,
  format: 0 | 1,
  s: EncodeSettings,
  encoderOf: (t: DuckDBType, format: 0 | 1, s: EncodeSettings) => ValueEncoder,
): ValueEncoder {
  const names = t.entryNames;
  const types = t.entryTypes;
  const encoders = types.map((ft) => encoderOf(ft, format, s));
  const scratch = new Writer(64);
  const fieldOf = (v: DuckDBValue, i: number): DuckDBValue => (v as DuckDBStructValue).entries[names[i]!] ?? null;
  if (format === 1) {
    const oids = types.map((ft, i) => (names[i]!.endsWith('u') ? OID.unknown : pgFieldFor(ft).oid));
    return (w, v) => {
      w.int32(names.length);
      for (let i = 0; i < names.length; i++) {
        w.int32(oids[i]!);
        const x = fieldOf(v, i);
        if (x === null) {
          w.int32(-1);
          continue;
        }
        const at = w.length;
        w.int32(0);
        encoders[i]!(w, x);
        w.setInt32(at, w.length - at - 4);
      }
    };
  }
  return (w, v) => {
    let out = '(';
    for (let i = 0; i < names.length; i++) {
      if (i > 0) out += ',';
      const x = fieldOf(v, i);
      if (x === null) continue;
      encoders[i]!(scratch, x);
      const text = scratch.raw.toString('utf8', 0, scratch.length);
      scratch.truncate(0);
      out += NEEDS_QUOTES.test(text) ? `"${text.replace(/["\\]/g, (c) => c + c)}"` : text;
    }
    w.utf8(out + ')');
  };
}
