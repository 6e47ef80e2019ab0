/**
 * What a push's source holds: its files read whole, its refs (listed, or from its refs.json index
 * where it cannot be listed, an HTTPS mirror) and its complete versions, parents before children.
 */
import { isVersionId, refKind } from '../resolver/names.js';
import { parseVersionJson } from '../resolver/records.js';
import type { ObjectStore } from '../store/index.js';

export type VersionRecord = ReturnType<typeof parseVersionJson>;

/** version.json's bytes and what they say, by version ID. */
export type VersionRecords = Map<string, { bytes: Buffer; rec: VersionRecord }>;

export async function getBytes(store: ObjectStore, key: string): Promise<Buffer | null> {
  const r = await store.get(key, { maxBytes: 64 * 1024 * 1024 });
  return r === null || r === 'not-modified' ? null : r.body;
}

export interface SourceRefs {
  refs: Map<string, string>;
  head: Buffer | null;
}

/** Refs from refs/ where the source can list, else from its refs.json index (an HTTPS mirror). */
export async function sourceRefs(source: ObjectStore): Promise<SourceRefs> {
  const refs = new Map<string, string>();
  const head = await getBytes(source, 'HEAD');
  if (source.list) {
    for (const key of await source.list('refs/')) {
      if (!refKind(key)) continue;
      const id = (await getBytes(source, key))?.toString('utf8').trim();
      if (id !== undefined && isVersionId(id)) refs.set(key, id);
    }
    return { refs, head };
  }
  const index = await getBytes(source, 'refs.json');
  if (!index) throw new Error(`${source.location} cannot be listed and has no refs.json`);
  const parsed = JSON.parse(index.toString('utf8')) as { head?: string; refs?: Record<string, string> };
  for (const [key, id] of Object.entries(parsed.refs ?? {})) if (refKind(key) && isVersionId(id)) refs.set(key, id);
  return { refs, head: head ?? (parsed.head ? Buffer.from(`ref: ${parsed.head}\n`) : null) };
}

/** Every complete version (listed, or reachable from the refs), parents before children. */
export async function versionsInOrder(
  source: ObjectStore,
  { refs }: SourceRefs,
  records: VersionRecords,
): Promise<string[]> {
  const roots = new Set(refs.values());
  if (source.list) {
    for (const key of await source.list('versions/')) {
      const m = /^versions\/([^/]+)\/version\.json$/.exec(key);
      if (m && isVersionId(m[1]!)) roots.add(m[1]!);
    }
  }
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = async (id: string): Promise<void> => {
    if (records.has(id)) return;
    if (visiting.has(id)) throw new Error(`version ${id} is its own ancestor`);
    visiting.add(id);
    const bytes = await getBytes(source, `versions/${id}/version.json`);
    if (!bytes) throw new Error(`version ${id} has no version.json in ${source.location}`);
    const rec = parseVersionJson(bytes, id);
    if (rec.id !== id) throw new Error(`versions/${id}/version.json names ${rec.id}`);
    for (const parent of rec.parents) await visit(parent);
    records.set(id, { bytes, rec });
    order.push(id);
  };
  for (const id of [...roots].sort()) await visit(id);
  return order;
}
