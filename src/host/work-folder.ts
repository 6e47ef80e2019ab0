/**
 * Local work folders of the fdl commands (`<tmpdir>/fdl-<kind>-XXXXXX`: catalogs being built, data
 * files before upload, key copies for ssh-keygen). Each records its writer in `writer.json` (host,
 * boot, pid and process start time, as pending markers do: write-journal.ts) right after it is made,
 * so a folder left by a run killed with SIGKILL, or cut short by the clean-up deadline
 * (interrupt.ts), is known as a dead writer's and removed by `fdl gc` and by the next `fdl import`.
 * A folder whose writer is alive, or that has no readable record (made by an older fdl, or its
 * record not yet written), is never touched.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thisWriter, writerState, type WriterId } from './write-journal.js';

export const WRITER_FILE = 'writer.json';

/** The kinds of work folder, each `fdl-<kind>-` plus mkdtemp's six characters. */
const KINDS = ['import', 'publish', 'push', 'delete', 'update', 'sign', 'pub', 'verify', 'inventory', 'demo-key'];
const WORK_FOLDER = new RegExp(`^fdl-(?:${KINDS.join('|')})-[A-Za-z0-9]{6}$`);

/** A fresh work folder in the temp folder, with its writer recorded. */
export async function makeWorkFolder(kind: (typeof KINDS)[number]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `fdl-${kind}-`));
  await writeFile(join(dir, WRITER_FILE), JSON.stringify(thisWriter()) + '\n', { mode: 0o600 });
  return dir;
}

/** The writer a work folder records, or null (no record, or one that cannot be read). */
async function recordedWriter(dir: string): Promise<WriterId | null> {
  try {
    const w = JSON.parse(await readFile(join(dir, WRITER_FILE), 'utf8')) as Partial<WriterId>;
    if (typeof w.host !== 'string' || typeof w.pid !== 'number') return null;
    return w as WriterId;
  } catch {
    return null;
  }
}

/**
 * Removes (or, with `dryRun`, lists) the work folders in the temp folder whose recorded writer no
 * longer runs on this host. Returns the folders.
 */
export async function clearDeadWorkFolders(
  opts: { dryRun?: boolean; report?: (line: string) => void } = {},
): Promise<string[]> {
  const root = tmpdir();
  const names = await readdir(root).catch(() => [] as string[]);
  const dead: string[] = [];
  for (const name of names.filter((n) => WORK_FOLDER.test(n)).sort()) {
    const dir = join(root, name);
    const w = await recordedWriter(dir);
    if (!w || writerState(w) !== 'dead') continue;
    opts.report?.(
      `${opts.dryRun ? 'would remove' : 'removing'} work folder ${dir} (process ${w.pid} on this host no longer runs)`,
    );
    if (!opts.dryRun) await rm(dir, { recursive: true, force: true });
    dead.push(dir);
  }
  return dead;
}
