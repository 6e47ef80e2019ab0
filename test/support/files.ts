/**
 * What tests compare before and after an attack: every file under a folder with its size and
 * modification time (a refusal must leave a repository, cache or state folder exactly as it was).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function fileListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p);
        out.push(`${p} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

/** `p`, or a rejection naming `what` when it takes longer than `ms`. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, j) => (timer = setTimeout(() => j(new Error(`${what}: not within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `p`, or `fallback` when it takes longer than `ms`. The timer is cleared either way: a pending one
 * would keep the test file's process alive that long after its last test (a worker of `npm test` idle).
 */
export async function orAfter<T, U>(p: Promise<T>, ms: number, fallback: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<U>((r) => (timer = setTimeout(() => r(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
