/**
 * DuckDB STRUCT / MAP / UNION values rendered as compact JSON documents (served as PostgreSQL json),
 * following DuckDB's to_json shape: structs and maps become objects, lists arrays.
 */
import {
  DuckDBTypeId,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBStructType,
  type DuckDBMapType,
  type DuckDBUnionType,
  type DuckDBStructValue,
  type DuckDBMapValue,
  type DuckDBUnionValue,
  type DuckDBListValue,
  type DuckDBDecimalValue,
} from '@duckdb/node-api';
import { Writer } from '../writer.js';
import * as T from './text.js';
import type { EncodeSettings } from './values.js';
import { valueEncoder } from './values.js';

const scratch = new Writer(256);

/** The PostgreSQL text form of a scalar, as a JS string (via the regular text encoder). */
function scalarText(t: DuckDBType, v: DuckDBValue, s: EncodeSettings): string {
  valueEncoder(t, 0, s)(scratch, v);
  const out = scratch.raw.toString('utf8', 0, scratch.length);
  scratch.truncate(0);
  return out;
}

export function jsonText(t: DuckDBType, v: DuckDBValue, s: EncodeSettings): string {
  if (v === null || v === undefined) return 'null';
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return v ? 'true' : 'false';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return String(v);
    case DuckDBTypeId.DECIMAL: {
      const d = v as DuckDBDecimalValue;
      return T.decimalString(d.value, d.scale);
    }
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE: {
      const n = v as number;
      const str = t.typeId === DuckDBTypeId.FLOAT ? T.float4String(n, 1) : T.float8String(n, 1);
      return Number.isFinite(n) ? str : JSON.stringify(str); // PostgreSQL's to_json quotes NaN/Infinity
    }
    case DuckDBTypeId.VARCHAR:
      return t.alias === 'JSON' ? (v as string) : JSON.stringify(v);
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const et = (t as unknown as { valueType: DuckDBType }).valueType;
      return '[' + (v as DuckDBListValue).items.map((x) => jsonText(et, x, s)).join(',') + ']';
    }
    case DuckDBTypeId.STRUCT: {
      const st = t as DuckDBStructType;
      const e = (v as DuckDBStructValue).entries;
      return (
        '{' + st.entryNames.map((n, i) => JSON.stringify(n) + ':' + jsonText(st.entryTypes[i], e[n], s)).join(',') + '}'
      );
    }
    case DuckDBTypeId.MAP: {
      const mt = t as DuckDBMapType;
      return (
        '{' +
        (v as DuckDBMapValue).entries
          .map((e) => {
            const k = typeof e.key === 'string' ? e.key : scalarText(mt.keyType, e.key, s);
            return JSON.stringify(k) + ':' + jsonText(mt.valueType, e.value, s);
          })
          .join(',') +
        '}'
      );
    }
    case DuckDBTypeId.UNION: {
      const ut = t as DuckDBUnionType;
      const u = v as DuckDBUnionValue;
      const i = ut.memberTags.indexOf(u.tag);
      return i < 0 ? JSON.stringify(String(u.value)) : jsonText(ut.memberTypes[i], u.value, s);
    }
    case DuckDBTypeId.VARIANT:
      return JSON.stringify(String(v));
    default:
      return JSON.stringify(scalarText(t, v, s));
  }
}
