/**
 * Refs on the host side: branches move by compare-and-swap, tags are created once and never
 * rewritten, refs.json is rebuilt from refs/ after every change (an index for readers that cannot list).
 */
import { isVersionId, refKind } from '../resolver/names.js';
import { BranchMovedError, type WriteTarget } from './target.js';

export class RefExistsError extends Error {}

export function checkRefName(kind: 'heads' | 'tags', name: string): string {
  const full = `refs/${kind}/${name}`;
  if (!refKind(full))
    throw new Error(
      `invalid ${kind === 'heads' ? 'branch' : 'tag'} name ${JSON.stringify(name)}: lowercase components [a-z0-9][a-z0-9._-]* separated by "/"`,
    );
  return full;
}

export async function readRef(target: WriteTarget, full: string): Promise<string | null> {
  const r = await target.read(full);
  if (!r) return null;
  const id = r.body.toString('utf8').trim();
  if (!isVersionId(id)) throw new Error(`malformed ref ${full}`);
  return id;
}

/**
 * A short name must not be both a branch and a tag (`@name` would be ambiguous to every reader):
 * before `full` is created, the other kind's ref of the same name must be absent.
 */
export async function checkNoCollision(target: WriteTarget, full: string): Promise<void> {
  const m = /^refs\/(heads|tags)\/(.+)$/.exec(full);
  if (!m) return;
  const other = `refs/${m[1] === 'heads' ? 'tags' : 'heads'}/${m[2]}`;
  if (await target.exists(other))
    throw new RefExistsError(
      `${m[2]} is already a ${m[1] === 'heads' ? 'tag' : 'branch'} (${other}): a short name must not be both a branch and a tag, or @${m[2]} would be ambiguous`,
    );
}

/** Moves a branch from `expected` (null: the branch must not exist yet) to `id`. */
export async function moveBranch(
  target: WriteTarget,
  branch: string,
  expected: string | null,
  id: string,
): Promise<void> {
  const full = checkRefName('heads', branch);
  if (expected === null) await checkNoCollision(target, full);
  await target.swap(full, expected, Buffer.from(`${id}\n`));
  await writeRefsJson(target);
}

/** Creates a ref that must not exist yet (tags always; new branches). */
export async function createRef(target: WriteTarget, full: string, id: string): Promise<void> {
  await checkNoCollision(target, full);
  if (!(await target.create(full, Buffer.from(`${id}\n`)))) {
    const cur = await readRef(target, full).catch(() => '?');
    throw new RefExistsError(
      `${full} already exists (points at ${cur}); ${full.startsWith('refs/tags/') ? 'tags are never rewritten' : 'it is not moved'}`,
    );
  }
  await writeRefsJson(target);
}

export async function writeRefsJson(target: WriteTarget): Promise<void> {
  const refs: Record<string, string> = {};
  for (const key of await target.list('refs/')) {
    if (!refKind(key)) continue; // skips *.lock and temp files
    const id = await readRef(target, key).catch(() => null);
    if (id) refs[key] = id;
  }
  const headFile = await target.read('HEAD');
  const m = headFile ? /^ref:\s*(\S+)\s*$/.exec(headFile.body.toString('utf8')) : null;
  const head = m?.[1] ?? 'refs/heads/main';
  // Unchanged refs write nothing (a push that moves no ref leaves the target byte for byte as it was).
  const old = await target.read('refs.json');
  if (old) {
    try {
      const prev = JSON.parse(old.body.toString('utf8')) as { head?: string; refs?: Record<string, string> };
      if (prev.head === head && JSON.stringify(prev.refs) === JSON.stringify(refs)) return;
    } catch {
      // an unreadable index is rewritten
    }
  }
  const body = { head, refs, updated: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
  await target.put('refs.json', Buffer.from(JSON.stringify(body, null, 2) + '\n'));
}

export { BranchMovedError };
