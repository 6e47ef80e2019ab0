/** Public surface of the PostgreSQL catalog emulation (the rewriter is ../rewrite.ts). */
export { compatFiles, installCompat, type InstallOptions } from './install.js';
export {
  catalogColumnOid,
  catalogColumnTypeOverrides,
  catalogTypeOid,
  duckdbTypeToPg,
  type PgTypeRef,
} from '../types.js';
export { relationInfoStatement, type RelationInfo } from './session.js';
export { COMPAT_DB, DEFAULT_SERVER_VERSION, VERSIONS_DB } from './names.js';
export { snapshotVersionCatalog, forgetVersionCatalog } from './version-snapshot.js';
