/**
 * Who may read what: per user, an allowlist of ref patterns per repository (`*` for any
 * repository). Users listed without grants read everything their authentication lets them in to.
 * A user not listed at all reads nothing once the user table is closed (password authentication):
 * only a listed user can log in then, so an unlisted name is one removed by a reload.
 */
import { SqlError, SQLSTATE } from '../errors.js';

export interface GrantedUser {
  /** Repository → ref patterns (`tags/*`, `heads/main`, `requests/*`, `versions/*`, `*`). Absent: everything. */
  grants?: Record<string, string[]>;
}

/** Internal readers (the status page) have names no startup packet can carry: a leading NUL. */
const INTERNAL = '\u0000';

export class Grants {
  /** `closed()`: whether users missing from the table read nothing (false under trust, where any name logs in). */
  constructor(
    private readonly users: Record<string, GrantedUser>,
    private readonly closed: () => boolean = () => false,
  ) {}

  /** Missing from a closed table: reads nothing (a removed user's open session, a race with a reload). */
  private shutOut(user: string): boolean {
    return !Object.hasOwn(this.users, user) && !user.startsWith(INTERNAL) && this.closed();
  }

  /** Whether `user` may read `fullRef` (`refs/tags/v1`, or `versions/<id>` for a version ID) of `repo`. */
  allows(user: string, repo: string, fullRef: string): boolean {
    if (this.shutOut(user)) return false;
    const grants = Object.hasOwn(this.users, user) ? this.users[user]!.grants : undefined;
    if (!grants) return true;
    const patterns = Object.hasOwn(grants, repo) ? grants[repo] : Object.hasOwn(grants, '*') ? grants['*'] : undefined;
    const name = fullRef.replace(/^refs\//, '');
    return !!patterns && patterns.some((p) => refPatternMatches(p, name));
  }

  /** Whether the user's reads are limited at all (then views list only what is granted). */
  restricts(user: string): boolean {
    if (this.shutOut(user)) return true;
    return Object.hasOwn(this.users, user) && this.users[user]!.grants !== undefined;
  }

  /**
   * Whether `repo` exists for `user` at all: always for an unrestricted user, else when a pattern
   * names it (or `*`). A repository a user may not see answers like one that is not served.
   */
  seesRepository(user: string, repo: string): boolean {
    const grants = Object.hasOwn(this.users, user) ? this.users[user]!.grants : undefined;
    if (!grants) return true;
    const patterns = Object.hasOwn(grants, repo) ? grants[repo] : Object.hasOwn(grants, '*') ? grants['*'] : undefined;
    return !!patterns && patterns.length > 0;
  }

  /** Refuses (42501) a ref the user's grants do not cover. */
  authorize(user: string, repo: string, fullRef: string): void {
    if (this.allows(user, repo, fullRef)) return;
    throw this.denial(user, repo, fullRef);
  }

  /** The refusal of `name` (as the user wrote it): it says nothing of whether the ref exists. */
  denial(user: string, repo: string, name: string): SqlError {
    return new SqlError(
      SQLSTATE.insufficientPrivilege,
      `permission denied: user "${user}" may not read ${repo}@${name.replace(/^refs\//, '')}`,
    );
  }
}

/** `*` matches within one path component; a lone `*` matches every ref and version. */
export function refPatternMatches(pattern: string, name: string): boolean {
  if (pattern === '*' || pattern === '**') return true;
  const re = new RegExp(
    '^' +
      pattern
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*') +
      '$',
  );
  return re.test(name);
}
