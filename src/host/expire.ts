/**
 * fdl expire: the retention of a version has passed; readers refuse it from now on. With a signing
 * key, expired.json names the version and is signed like version.json (expired.json.sig, namespace
 * fdl): a reader with trusted keys then remembers the expiry for good, and a store writer can
 * neither forge one nor lift it.
 */
import { isVersionId, versionPrefixMatches } from '../resolver/names.js';
import type { WriteTarget } from './target.js';
import { checkSignKey, checkWritableTarget } from './preflight.js';
import { sshSign } from './sign.js';
import { openTarget, type S3TargetOptions } from './target.js';

/** A complete version by its ID or an unambiguous prefix of it (≥ 8 hex digits, as readers resolve them). */
export async function versionNamed(target: WriteTarget, text: string): Promise<string> {
  if (isVersionId(text) && (await target.exists(`versions/${text}/version.json`))) return text;
  const ids = (await target.list('versions/'))
    .map((k) => /^versions\/([^/]+)\/version\.json$/.exec(k)?.[1])
    .filter((id): id is string => id !== undefined);
  const matches = versionPrefixMatches(text, ids) ?? [];
  if (matches.length > 1)
    throw new Error(
      `ambiguous version ID prefix ${text}: ${matches.length} versions start with it (${matches.join(', ')}); give more digits`,
    );
  if (matches.length === 0) throw new Error(`no version ${text} in ${target.location}`);
  return matches[0]!;
}

/** Returns the full ID of the version expired. */
export async function expireVersion(
  location: string,
  versionText: string,
  successorText?: string,
  s3?: S3TargetOptions,
  signKey?: string,
): Promise<string> {
  await checkSignKey(signKey);
  const target = openTarget(location, s3);
  await checkWritableTarget(target, ['versions/']);
  const version = await versionNamed(target, versionText);
  const successor = successorText === undefined ? undefined : await versionNamed(target, successorText);
  const key = `versions/${version}/expired.json`;
  if (await target.exists(key)) throw new Error(`version ${version} is already expired`);
  const body = {
    id: version,
    expired: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason: 'retention',
    ...(successor ? { successor } : {}),
  };
  const bytes = Buffer.from(JSON.stringify(body, null, 2) + '\n');
  // the signature first: a reader that sees expired.json finds its signature next to it
  if (signKey) await target.put(`${key}.sig`, await sshSign(bytes, signKey));
  if (!(await target.create(key, bytes))) {
    if (signKey) await target.remove(`${key}.sig`); // another expire won the race: its signature is not ours to keep
    throw new Error(`version ${version} is already expired`);
  }
  return version;
}
