/**
 * Resolution as a user limited by grants sees it: a ref they may not read is refused from its name
 * alone, before anything is read, so the answer is the same whether it exists or not; only refs
 * they may read are tried (a short name never resolves to, or is ambiguous with, a ref they may not
 * read, and is refused when not found among theirs); hints name only their refs.
 */
import { isSqlError, SQLSTATE } from '../errors.js';
import { isVersionId, type Repository, type Resolution } from '../resolver/index.js';
import type { Grants } from './grants.js';

export async function resolveGranted(
  grants: Grants,
  user: string,
  repo: Repository,
  repoName: string,
  ref: string,
): Promise<Resolution> {
  if (!grants.restricts(user)) {
    const res = await repo.resolve(ref);
    grants.authorize(user, repoName, res.ref ?? `versions/${res.versionId}`);
    return res;
  }
  const allows = (full: string) => grants.allows(user, repoName, full);
  const denied = () => grants.denial(user, repoName, ref === '' ? 'HEAD' : ref);
  const candidates = candidateRefs(ref);
  let res: Resolution;
  if (candidates === null) {
    // HEAD names its target only once read: any failure would tell what it points at.
    try {
      res = await repo.resolve(ref, allows);
    } catch (e) {
      if (isSqlError(e)) throw denied();
      throw e;
    }
  } else {
    const granted = candidates.filter(allows);
    if (granted.length === 0) throw denied();
    if (granted.length === candidates.length) res = await repo.resolve(ref, allows);
    else {
      // Some of what the name could mean is not theirs: found among the rest, or refused as if it
      // named only what they may not read (an "unknown ref" would tell them the others exist).
      try {
        res = await repo.resolve(granted.length === 1 ? asRequest(granted[0]!) : ref, allows);
      } catch (e) {
        if (isSqlError(e) && e.sqlstate === SQLSTATE.invalidCatalogName) throw denied();
        throw e;
      }
    }
  }
  if (!allows(res.ref ?? `versions/${res.versionId}`)) throw denied();
  return res;
}

/** The full names `ref` may resolve to, in the resolver's order; null for HEAD (its target is read). */
function candidateRefs(ref: string): string[] | null {
  if (ref === '' || ref === 'HEAD') return null;
  if (ref.startsWith('refs/')) return [ref];
  if (/^(heads|tags|requests)\//.test(ref)) return [`refs/${ref}`];
  return [...(isVersionId(ref) ? [`versions/${ref}`] : []), `refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** A candidate as a name the resolver reads as exactly that (a version ID stays bare). */
function asRequest(full: string): string {
  return full.startsWith('versions/') ? full.slice('versions/'.length) : full;
}
