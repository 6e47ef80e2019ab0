/**
 * Ref names and version IDs (spec Part 2). Everything a client or a file names is checked here
 * before any store key is built from it, so no name can reach outside refs/ or versions/.
 */
import { SqlError, SQLSTATE } from '../errors.js';

export type RefKind = 'branch' | 'tag' | 'request';

const COMPONENT = /^[a-z0-9][a-z0-9._-]*$/;
const VERSION_ID = /^[0-9a-z][0-9a-z._-]{0,127}$/;
const KIND_OF: Record<string, RefKind> = { heads: 'branch', tags: 'tag', requests: 'request' };

export function isVersionId(s: string): boolean {
  return VERSION_ID.test(s);
}

/**
 * Git's short IDs: `name` with at least 8 hex digits (dashes allowed) is a prefix of the IDs it
 * starts; the matching IDs of `ids`, sorted (one: unambiguous). null when `name` is no such prefix.
 */
export function versionPrefixMatches(name: string, ids: Iterable<string>): string[] | null {
  if (!/^[0-9a-f][0-9a-f-]*$/.test(name) || name.replace(/-/g, '').length < 8) return null;
  return [...new Set([...ids].filter((id) => id.startsWith(name) && isVersionId(id)))].sort();
}

/** A short name (`main`, `feature/x`): every component valid. */
export function isValidShortName(s: string): boolean {
  return s.length > 0 && s.split('/').every(validComponent);
}

function validComponent(c: string): boolean {
  return COMPONENT.test(c) && c !== '.' && c !== '..' && !c.endsWith('.lock');
}

/** `refs/heads/x`, `refs/tags/x`, `refs/requests/<n>` → its kind; anything else → null. */
export function refKind(full: string): RefKind | null {
  if (Buffer.byteLength(full) > 255) return null;
  const parts = full.split('/');
  if (parts.length < 3 || parts[0] !== 'refs') return null;
  const kind = KIND_OF[parts[1]!];
  if (!kind) return null;
  const rest = parts.slice(2);
  if (!rest.every(validComponent)) return null;
  if (kind === 'request' && (rest.length !== 1 || !/^[0-9]+$/.test(rest[0]!))) return null;
  return kind;
}

export function invalidRefName(name: string, why = ''): SqlError {
  return new SqlError(
    SQLSTATE.invalidCatalogName,
    `invalid ref name ${JSON.stringify(name)}${why ? `: ${why}` : ''}`,
    undefined,
    'ref names are lowercase components [a-z0-9][a-z0-9._-]* separated by "/", e.g. main, tags/v1, refs/heads/dev, requests/1',
  );
}

/**
 * Parses a ref file: one version ID, optional surrounding whitespace. Anything else is
 * "malformed ref" — never guess (two IDs on two lines are refused, not "the first one").
 */
export function parseRefFile(body: Buffer, refName: string): string {
  const text = body.toString('utf8').trim();
  if (!isVersionId(text)) {
    // what the file holds is never quoted: it is the store's content, not the client's
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `malformed ref ${refName}: its file does not hold exactly one version ID`,
      `the file has ${body.length} bytes`,
    );
  }
  return text;
}
