/**
 * fdl expire: the retention of a version has passed; readers refuse it from now on. With a signing
 * key, expired.json names the version and is signed like version.json (expired.json.sig, namespace
 * fdl): a reader with trusted keys then remembers the expiry for good, and a store writer can
 * neither forge one nor lift it.
 */
import { isVersionId } from '../resolver/names.js';
import { checkSignKey, checkWritableTarget } from './preflight.js';
import { sshSign } from './sign.js';
import { openTarget, type S3TargetOptions } from './target.js';

export async function expireVersion(
  location: string,
  version: string,
  successor?: string,
  s3?: S3TargetOptions,
  signKey?: string,
): Promise<void> {
  await checkSignKey(signKey);
  const target = openTarget(location, s3);
  await checkWritableTarget(target, ['versions/']);
  for (const v of [version, successor]) {
    if (v === undefined) continue;
    if (!isVersionId(v) || !(await target.exists(`versions/${v}/version.json`)))
      throw new Error(`no version ${v} in ${target.location}`);
  }
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
}
