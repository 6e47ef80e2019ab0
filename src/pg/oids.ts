/**
 * PostgreSQL type OIDs and the mapping from DuckDB logical types to them (RowDescription,
 * ParameterDescription). Values are PostgreSQL 15's pg_type. Planning (session/) and the wire's
 * encoders both read it, so it lives below both.
 */
import type { DuckDBType } from '@duckdb/node-api';
import { DuckDBTypeId } from './duckdb-type-id.js';
import { FALLBACK_OID, OID_BY_DUCKDB_ID } from './types.js';
import { isShownNumericStruct } from './shown-numeric.js';

export const OID = {
  bool: 16,
  bytea: 17,
  char: 18,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  xml: 142,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  bit: 1560,
  varbit: 1562,
  numeric: 1700,
  regproc: 24,
  regtype: 2206,
  regclass: 2205,
  uuid: 2950,
  jsonb: 3802,
  void: 2278,
  record: 2249,
} as const;

/** element OID → array OID (pg_type.typarray). */
export const ARRAY_OF: ReadonlyMap<number, number> = new Map([
  [16, 1000],
  [17, 1001],
  [18, 1002],
  [19, 1003],
  [20, 1016],
  [21, 1005],
  [23, 1007],
  [25, 1009],
  [26, 1028],
  [114, 199],
  [142, 143],
  [700, 1021],
  [701, 1022],
  [1042, 1014],
  [1043, 1015],
  [1082, 1182],
  [1083, 1183],
  [1114, 1115],
  [1184, 1185],
  [1186, 1187],
  [1266, 1270],
  [1560, 1561],
  [1562, 1563],
  [1700, 1231],
  [2950, 2951],
  [3802, 3807],
  [24, 1008],
  [2206, 2211],
  [2205, 2210],
  [2249, 2287],
]);

/** array OID → element OID. */
export const ELEMENT_OF: ReadonlyMap<number, number> = new Map([...ARRAY_OF].map(([e, a]) => [a, e]));

const NAMES: ReadonlyMap<number, string> = new Map<number, string>([
  ...Object.entries(OID).map(([n, o]) => [o, n] as [number, string]),
  ...[...ARRAY_OF].map(
    ([e, a]) => [a, `_${(Object.entries(OID).find(([, o]) => o === e) ?? ['?'])[0]}`] as [number, string],
  ),
]);

/** pg_type.typname for an OID ('int4', '_int4' for arrays); 'unknown' when we do not know it. */
export function pgTypeName(oid: number): string {
  return NAMES.get(oid) ?? 'unknown';
}

/** pg_type.typlen (-1 varlena, -2 cstring). */
export function pgTypeLen(oid: number): number {
  switch (oid) {
    case OID.bool:
    case OID.char:
      return 1;
    case OID.int2:
      return 2;
    case OID.int4:
    case OID.oid:
    case OID.float4:
    case OID.date:
    case OID.regproc:
    case OID.regtype:
    case OID.regclass:
    case 28:
    case 29:
      return 4;
    case OID.int8:
    case OID.float8:
    case OID.time:
    case OID.timestamp:
    case OID.timestamptz:
      return 8;
    case OID.timetz:
      return 12;
    case OID.interval:
    case OID.uuid:
      return 16;
    case OID.name:
      return 64;
    case OID.unknown:
      return -2;
    case OID.void:
      return 4;
    default:
      return -1;
  }
}

/**
 * One result column as a client is told about it (RowDescription): planning builds these, the wire
 * encodes them.
 */
export interface FieldDescription {
  name: string;
  tableOid?: number;
  columnAttr?: number;
  typeOid: number;
  typeLen: number;
  typeMod: number;
  format: 0 | 1;
}

export interface PgField {
  oid: number;
  typmod: number;
  typlen: number;
}

/** The element OID a DuckDB scalar (non-list) type is served as (the one type table, sql/compat/types.ts). */
function scalarOid(t: DuckDBType): number {
  if (t.typeId === DuckDBTypeId.VARCHAR && t.alias === 'JSON') return OID.json;
  if (isRecordStruct(t)) return OID.record;
  if (isShownNumericStruct(t)) return OID.numeric;
  return OID_BY_DUCKDB_ID.get(DuckDBTypeId[t.typeId] ?? '') ?? FALLBACK_OID;
}

/**
 * A PostgreSQL anonymous record: the rewrite builds `row(…)` as a struct with fields f1…fn, the
 * names PostgreSQL gives a record's columns (other structs are served as json); `f<i>u` is a field
 * of type unknown (a NULL or string constant), 705 in the binary record.
 */
export function isRecordStruct(t: DuckDBType): boolean {
  if (t.typeId !== DuckDBTypeId.STRUCT) return false;
  const names = (t as unknown as { entryNames: readonly string[] }).entryNames;
  return names.length > 0 && names.every((n, i) => n === `f${i + 1}` || n === `f${i + 1}u`);
}

/** Innermost element type of nested LIST/ARRAY types, and how many list levels wrap it. */
export function listLeaf(t: DuckDBType): { leaf: DuckDBType; depth: number } {
  let depth = 0;
  while (t.typeId === DuckDBTypeId.LIST || t.typeId === DuckDBTypeId.ARRAY) {
    t = (t as { valueType: DuckDBType }).valueType;
    depth++;
  }
  return { leaf: t, depth };
}

/**
 * A value the rewrite wrapped to say which PostgreSQL type it is sent as, where DuckDB's type cannot
 * (pg-shown-calls.ts `typedAs`): a struct of one field named `fdl_pg_<what>` — `row` a whole-row
 * reference (a record when x is a row, else x: a column named like its FROM item), `rowtext` a whole-row
 * reference cast to text (record_out's text when x is a row, else x), `bpchar_<n>` and
 * `varchar_<n>` a char(n)/varchar(n) cast, `varchar` a varchar without a length, `oid` a cast to oid (held as BIGINT), `bpchar` a bpchar without a length, `regtype` pg_typeof's name, `jsonb` a jsonb value (held as JSON), `regproc` a catalog regproc column (a struct of its OID and name), `name` and `char` a cast to name or \"char\". Undefined for any other type.
 */
export function typedWrapper(t: DuckDBType): { what: string; inner: DuckDBType } | undefined {
  if (t.typeId !== DuckDBTypeId.STRUCT) return undefined;
  const s = t as unknown as { entryNames: readonly string[]; entryTypes: readonly DuckDBType[] };
  const name = s.entryNames.length === 1 ? s.entryNames[0]! : '';
  return name.startsWith('fdl_pg_') ? { what: name.slice(7), inner: s.entryTypes[0]! } : undefined;
}

function wrappedField(what: string, inner: DuckDBType): PgField {
  if (what === 'row' && inner.typeId === DuckDBTypeId.STRUCT) return { oid: OID.record, typmod: -1, typlen: -1 };
  if (what === 'rowtext' && inner.typeId === DuckDBTypeId.STRUCT) return { oid: OID.text, typmod: -1, typlen: -1 };
  const chars = /^(bpchar|varchar)_(\d+)$/.exec(what);
  if (chars) return { oid: chars[1] === 'bpchar' ? 1042 : 1043, typmod: Number(chars[2]) + 4, typlen: -1 };
  if (what === 'bpchar') return { oid: OID.bpchar, typmod: -1, typlen: -1 };
  if (what === 'regtype') return { oid: OID.regtype, typmod: -1, typlen: 4 };
  if (what === 'jsonb') return { oid: OID.jsonb, typmod: -1, typlen: -1 };
  if (what === 'regproc') return { oid: OID.regproc, typmod: -1, typlen: 4 };
  if (what === 'name') return { oid: 19, typmod: -1, typlen: 64 };
  if (what === 'varchar') return { oid: OID.varchar, typmod: -1, typlen: -1 };
  if (what === 'oid') return { oid: OID.oid, typmod: -1, typlen: 4 };
  if (what === 'char') return { oid: 18, typmod: -1, typlen: 1 };
  return pgFieldFor(inner);
}

/** format_type's names (as pg_typeof answers them) → type OIDs, for regtype's binary form; 0 when unknown. */
const REGTYPE_OIDS: ReadonlyMap<string, number> = new Map([
  ['boolean', 16],
  ['bytea', 17],
  ['"char"', 18],
  ['name', 19],
  ['bigint', 20],
  ['smallint', 21],
  ['integer', 23],
  ['text', 25],
  ['oid', 26],
  ['json', 114],
  ['real', 700],
  ['double precision', 701],
  ['unknown', 705],
  ['character varying', 1043],
  ['date', 1082],
  ['time without time zone', 1083],
  ['timestamp without time zone', 1114],
  ['timestamp with time zone', 1184],
  ['interval', 1186],
  ['time with time zone', 1266],
  ['numeric', 1700],
  ['record', 2249],
  ['uuid', 2950],
]);

export function regtypeOid(name: string): number {
  if (name.endsWith('[]')) return ARRAY_OF.get(REGTYPE_OIDS.get(name.slice(0, -2)) ?? -1) ?? 0;
  return REGTYPE_OIDS.get(name) ?? 0;
}

/** RowDescription field for a DuckDB column type. Lists of any depth map to one array OID. */
export function pgFieldFor(t: DuckDBType): PgField {
  const wrapped = typedWrapper(t);
  if (wrapped) return wrappedField(wrapped.what, wrapped.inner);
  const { leaf, depth } = listLeaf(t);
  const elem = scalarOid(leaf);
  if (depth > 0) {
    // PostgreSQL arrays carry the element typmod (numeric(10,2)[] → 655366).
    return { oid: ARRAY_OF.get(elem) ?? 1009, typmod: typmodOf(leaf), typlen: -1 };
  }
  return { oid: elem, typmod: typmodOf(leaf), typlen: pgTypeLen(elem) };
}

function typmodOf(t: DuckDBType): number {
  if (t.typeId === DuckDBTypeId.DECIMAL) {
    const d = t as unknown as { width: number; scale: number };
    return ((d.width << 16) | d.scale) + 4;
  }
  return -1;
}

/** The element OID under a DuckDB type (itself for scalars). */
export function elementOidFor(t: DuckDBType): number {
  return scalarOid(listLeaf(t).leaf);
}
