/** fdl log: history from REF along parents (first parent first), with each version's signature status. */
import { openRepository } from '../resolver/repository.js';
import { readStore } from './repo.js';
import { openTarget, type S3TargetOptions } from './target.js';

const STATUS: Record<string, string> = {
  G: 'good signature',
  U: 'signed, signer not trusted',
  B: 'BAD signature',
  N: 'unsigned',
};

export async function logCommand(
  location: string,
  ref?: string,
  allowedSigners?: string,
  s3?: S3TargetOptions,
): Promise<string> {
  const target = openTarget(location, s3);
  const repo = await openRepository(target.location, await readStore(target), {
    signatures: 'off',
    allowedSigners,
    refTtlMs: 0,
  });
  const start = (await repo.resolve(ref ?? '')).versionId;
  const names = new Map<string, string[]>();
  for (const r of await repo.listRefs())
    names.set(r.versionId, [
      ...(names.get(r.versionId) ?? []),
      r.name.replace(/^refs\/(heads|tags)\//, (_m, k: string) => (k === 'tags' ? 'tag: ' : '')),
    ]);
  const out: string[] = [];
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const info = await repo.describeVersion(id);
    const v = info.version;
    const sig = info.signature;
    const refs = names.get(id);
    out.push(`version ${id}${refs ? ` (${refs.join(', ')})` : ''}`);
    if (v.parents.length > 1) out.push(`Merge:  ${v.parents.join(' ')}`);
    out.push(`Author: ${v.author ?? ''}`);
    out.push(`Date:   ${v.created ?? ''}`);
    out.push(
      `Sig:    ${STATUS[sig.status] ?? sig.status}${sig.signer ? ` by ${sig.signer}` : ''}${sig.fingerprint ? ` ${sig.fingerprint}` : ''}${sig.reason && sig.status !== 'G' && sig.status !== 'N' ? ` (${sig.reason})` : ''}`,
    );
    if (info.expired)
      out.push(
        `Expired: ${info.expired.expired ?? ''}${info.expired.successor ? `, successor ${info.expired.successor}` : ''}`,
      );
    out.push('', `    ${v.message ?? ''}`, '');
    queue.push(...v.parents);
  }
  return out.join('\n');
}
