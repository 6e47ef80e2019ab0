/** fdl tag / fdl branch: resolve REF with the gateway's own resolver, then create the ref once. */
import { openRepository } from '../resolver/repository.js';
import { checkWritableTarget } from './preflight.js';
import { checkNoCollision, checkRefName, createRef } from './refs-writer.js';
import { readStore } from './repo.js';
import { openTarget, type S3TargetOptions, type WriteTarget } from './target.js';

export async function resolveRef(target: WriteTarget, ref: string | undefined): Promise<string> {
  const repo = await openRepository(target.location, await readStore(target), { signatures: 'off', refTtlMs: 0 });
  return (await repo.resolve(ref ?? '')).versionId;
}

export async function tagCommand(location: string, name: string, ref?: string, s3?: S3TargetOptions): Promise<string> {
  const target = openTarget(location, s3);
  const full = checkRefName('tags', name);
  await checkWritableTarget(target, ['refs/']);
  await checkNoCollision(target, full);
  const id = await resolveRef(target, ref);
  await createRef(target, full, id);
  return id;
}

export async function branchCommand(
  location: string,
  name: string,
  ref?: string,
  s3?: S3TargetOptions,
): Promise<string> {
  const target = openTarget(location, s3);
  const full = checkRefName('heads', name);
  await checkWritableTarget(target, ['refs/']);
  await checkNoCollision(target, full);
  const id = await resolveRef(target, ref);
  await createRef(target, full, id);
  return id;
}
