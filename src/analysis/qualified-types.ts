/**
 * Type names qualified with a catalog or schema (`CAST(x AS "OTHER@id".main.t)`): DuckDB looks the
 * type up in that catalog, so whether the cast binds tells whether another database is attached —
 * an oracle on other versions' IDs. No version, and not the catalog emulation, defines a type of its
 * own, so a qualified type name is never needed: one naming a catalog, or a schema other than
 * `main`/`pg_catalog`, is refused 42501 from DuckDB's parse before anything binds it. Pure: the
 * input is DuckDB's parse tree (json_serialize_sql), whose UNBOUND types keep their qualification.
 *
 * The same walk refuses DuckDB's VARIANT type (0A000): a JSON value cast to it is converted by
 * recursion, and 100,000 nested brackets overflowed the stack and killed the process
 * (bench/deep-nesting-sweep.ts). PostgreSQL has no such type. Functions whose parameters are
 * VARIANT would convert a literal to it implicitly: admission refuses every function that takes or
 * makes one (containment.ts variantFunctions).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { jsonObjects } from './json-objects.js';

const PLAIN_SCHEMAS = new Set(['', 'main', 'pg_catalog']);

export function refuseQualifiedTypes(tree: unknown): void {
  for (const o of jsonObjects(tree)) {
    if (o.id === 'VARIANT') {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        'type variant is not supported by fdl-gateway',
        undefined,
        'Cast to json or to a structured type (STRUCT, a list) instead.',
      );
    }
    if (o.type === 'UNBOUND_TYPE_INFO') {
      const catalog = typeof o.catalog === 'string' ? o.catalog : '';
      const schema = typeof o.schema === 'string' ? o.schema.toLowerCase() : '';
      if (catalog !== '' || !PLAIN_SCHEMAS.has(schema)) {
        throw new SqlError(
          SQLSTATE.insufficientPrivilege,
          'permission denied: a type name qualified with a database or schema is not allowed through fdl-gateway',
        );
      }
    }
  }
}
