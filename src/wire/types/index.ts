/**
 * PostgreSQL type support for the wire layer: OIDs for RowDescription, DataRow encoding of DuckDB
 * chunks (text and binary, byte-identical to PostgreSQL 15), and Bind parameter decoding.
 */
export { pgFieldFor, pgTypeName, pgTypeLen, OID, ARRAY_OF, ELEMENT_OF, type PgField } from '../../pg/oids.js';
export { makeRowEncoder, type RowEncoder } from './rows.js';
export { valueEncoder, type EncodeSettings, type ValueEncoder } from './values.js';
export { decodeParam, type DecodedParam, type DecodeSettings } from './params.js';
export { zoneFor, type Zone } from './tz.js';
