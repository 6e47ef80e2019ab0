/**
 * `SET TRANSACTION SNAPSHOT 'id'` over immutable versions. A version never changes, so its ID is a
 * snapshot that never ends: `pg_export_snapshot()` answers the session's version ID, and a session of
 * the same repository importing it reads exactly that version for the rest of its block (pg_dump -j's
 * workers). The version is resolved through the importing user's own grants; an ID that is not a
 * version of this repository is an invalid snapshot identifier, as PostgreSQL 15 answers an ID it
 * cannot import.
 */
import { isSqlError, SqlError, SQLSTATE } from '../errors.js';
import type { SessionCore } from './core.js';

export async function importSnapshot(core: SessionCore, id: string): Promise<void> {
  core.tx.checkSnapshotImport(core.settings.get('default_transaction_isolation') ?? 'read committed');
  // PostgreSQL 15 answers every ID it cannot import so, whether malformed or not (or no longer) exported.
  const invalid = () =>
    new SqlError(
      SQLSTATE.invalidParameterValue,
      `invalid snapshot identifier: "${id}"`,
      `A snapshot is the ID of a version of the repository the session reads ("${core.repo}"), as pg_export_snapshot() answers it; "${core.repo}" has no version with this ID.`,
    );
  const versionId = id.toLowerCase();
  if (versionId === core.lease()?.versionId) return; // the version the block reads already
  if (!/^[0-9a-f-]+$/.test(versionId)) throw invalid();
  let next;
  try {
    next = await core.versions.acquire(core.repo, versionId, core.user);
  } catch (e) {
    if (isSqlError(e) && e.sqlstate === SQLSTATE.invalidCatalogName) throw invalid();
    if (isSqlError(e) && e.sqlstate === SQLSTATE.insufficientPrivilege)
      throw new SqlError(
        e.sqlstate,
        e.message,
        e.detail,
        'A snapshot names a version by its ID: reading it needs a grant that covers versions/<id> (such as versions/*).',
      );
    throw e;
  }
  // A branch or tag spelled in hexadecimal, or a prefix of an ID, is not this snapshot.
  if (next.versionId !== versionId) {
    next.release();
    throw invalid();
  }
  // Outside a block the snapshot would last for this statement only: checked, nothing changes.
  if (!core.tx.inBlock) {
    next.release();
    return;
  }
  await core.version.follower.importSnapshot(next);
}
