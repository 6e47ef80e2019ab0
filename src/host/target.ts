/**
 * Writing side of a repository location: a local folder (local-target.ts) or S3 (s3-target.ts),
 * behind one contract (write-target.ts: create, put, swap). src/store only reads, so the host writes here.
 */
import { fileURLToPath } from 'node:url';
import { LocalTarget } from './local-target.js';
import { S3Target, type S3TargetOptions } from './s3-target.js';
import type { WriteTarget } from './write-target.js';

// What the host's commands open a location with, from one module.
export { LocalTarget, S3Target, type S3TargetOptions };
export { BranchMovedError, type Body, type WriteTarget } from './write-target.js';

export function openTarget(location: string, s3: S3TargetOptions = {}): WriteTarget {
  if (/^s3:\/\//i.test(location)) return new S3Target(location, s3);
  if (/^file:\/\//i.test(location)) return new LocalTarget(fileURLToPath(location));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    throw new Error(`cannot write to ${location}: use a folder, file:// or s3://`);
  return new LocalTarget(location);
}
