/**
 * What a session tells the catalog about its version that DuckDB itself cannot: which views are the
 * lake's tables and which are the lake's own views (both are DuckDB views), and row/size estimates.
 * The session runs the returned statement on its connection after attaching the version.
 */
import { quoteLiteral } from '../../quote.js';
export interface RelationInfo {
  schema: string;
  name: string;
  /** 'table' → relkind 'r' (psql \dt, pg_tables); 'view' → relkind 'v'. Unlisted views count as tables. */
  kind: 'table' | 'view';
  /** Live rows (pg_class.reltuples, pg_stat_user_tables.n_live_tup). */
  rowCount?: number;
  /** Bytes of data files (pg_relation_size, pg_total_relation_size). */
  sizeBytes?: number;
}

const q = quoteLiteral;
const n = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? 'NULL' : String(Math.trunc(v)));

/** `SET VARIABLE pg_relations = [...]` for the relations of a version being attached: the snapshot (version-snapshot.ts) reads their kinds and sizes. */
export function relationInfoStatement(relations: readonly RelationInfo[]): string {
  const items = relations.map(
    (r) =>
      `{'schema_name': ${q(r.schema)}, 'name': ${q(r.name)}, 'kind': ${q(r.kind)}, 'row_count': ${n(r.rowCount)}::BIGINT, 'size_bytes': ${n(r.sizeBytes)}::BIGINT}`,
  );
  return `SET VARIABLE pg_relations = [${items.join(', ')}]`;
}
