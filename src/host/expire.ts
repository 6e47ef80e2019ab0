/** fdl expire: the retention of a version has passed; readers refuse it from now on. */
import { isVersionId } from '../resolver/names.js';
import { openTarget, type S3TargetOptions } from './target.js';

export async function expireVersion(location: string, version: string, successor?: string, s3?: S3TargetOptions): Promise<void> {
  const target = openTarget(location, s3);
  for (const v of [version, successor]) {
    if (v === undefined) continue;
    if (!isVersionId(v) || !(await target.exists(`versions/${v}/version.json`))) throw new Error(`no version ${v} in ${target.location}`);
  }
  const body = { expired: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: 'retention', ...(successor ? { successor } : {}) };
  if (!(await target.create(`versions/${version}/expired.json`, Buffer.from(JSON.stringify(body, null, 2) + '\n')))) {
    throw new Error(`version ${version} is already expired`);
  }
}
