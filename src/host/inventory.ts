/**
 * What a repository holds, as gc and verify judge it: each version folder (complete when
 * version.json is there, expired, or unfinished; a writer's pending marker and its age), the data
 * and delete files each complete version's frozen snapshot reads (the gateway's own catalog
 * reader decides), and every object under data_dir with its age.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openCatalog } from '../lake/index.js';
import { isVersionId } from '../resolver/names.js';
import { parseVersionJson } from '../resolver/records.js';
import { readSettings, readStore } from './repo.js';
import type { WriteTarget } from './target.js';
import { PENDING_MARKER, type MarkerBody, type WriterId } from './write-journal.js';
import { checkInterrupt } from './interrupt.js';
import { makeWorkFolder } from './work-folder.js';
import { quoteIdent } from '../quote.js';

export interface VersionFolder {
  id: string;
  keys: { key: string; modified: number }[];
  complete: boolean;
  expired: boolean;
  /** When the pending marker was written, if there is one. */
  pendingSince: number | null;
  /** The writer the pending marker names, when it is readable. */
  writer: WriterId | null;
  /** Keys outside the folder the writer's marker lists (its data files and scratch folders, ending in '/'). */
  writerKeys: string[];
  /** Newest object in the folder (ms). */
  newest: number;
  /**
   * A temp file of the marker (`pending.tmp-<pid>-…`, a local target's atomic write) when no marker
   * is there yet: it belongs to the writer about to create the marker, named by its pid.
   */
  markerTemp: { pid: number; modified: number } | null;
}

export interface Inventory {
  dataDir: string;
  versions: VersionFolder[];
  /** Data-dir-relative paths read by complete versions that are not expired. */
  liveFiles: Set<string>;
  /** … and by every complete version, expired included. */
  anyFiles: Set<string>;
  /** Objects under data_dir (keys relative to the root) with their age. */
  dataObjects: { key: string; modified: number }[];
}

/** A local target's temp file of the pending marker (atomic-file.ts tempBeside): `pending.tmp-<pid>-<hex>`. */
const MARKER_TEMP = new RegExp(`^${PENDING_MARKER}\\.tmp-(\\d+)-[0-9a-f]+$`);

/** Top-level names that are the repository's own, never data (when data_dir is the root). */
const OWN = /^(versions|refs)\/|^[^/]+$/;

export async function takeInventory(target: WriteTarget): Promise<Inventory> {
  const settings = await readSettings(target);
  const store = await readStore(target);
  // Data first, versions second: a writer creates its pending marker before its first data file and
  // removes it only after version.json, so every data object listed here belongs to a version whose
  // marker or version.json the listing below sees (listed the other way round, a writer that
  // started in between would have files but no marker gc knows of).
  const dataObjects = (await target.listAged(settings.dataDir)).filter(
    (o) => settings.dataDir !== '' || !OWN.test(o.key),
  );
  const byId = new Map<string, VersionFolder>();
  for (const o of await target.listAged('versions/')) {
    const [, id, ...rest] = o.key.split('/');
    if (!id || rest.length === 0) continue;
    let v = byId.get(id);
    if (!v)
      byId.set(
        id,
        (v = {
          id,
          keys: [],
          complete: false,
          expired: false,
          pendingSince: null,
          writer: null,
          writerKeys: [],
          newest: 0,
          markerTemp: null,
        }),
      );
    v.keys.push(o);
    v.newest = Math.max(v.newest, o.modified);
    const name = rest.join('/');
    if (name === 'version.json') v.complete = true;
    else if (name === 'expired.json') v.expired = true;
    else if (name === PENDING_MARKER) v.pendingSince = o.modified;
    else {
      const temp = MARKER_TEMP.exec(name);
      if (temp && (!v.markerTemp || o.modified < v.markerTemp.modified))
        v.markerTemp = { pid: Number(temp[1]), modified: o.modified };
    }
  }
  for (const v of byId.values()) {
    if (v.pendingSince === null) continue;
    const m = await readMarker(target, v.id);
    if (!m) continue;
    v.writer = m.writer;
    v.writerKeys = m.keys;
    // the marker is rewritten as the writer goes: its start, not its last write, dates the writer
    if (m.started !== null) v.pendingSince = Math.min(v.pendingSince, m.started);
  }
  const liveFiles = new Set<string>();
  const anyFiles = new Set<string>();
  const tmp = await makeWorkFolder('inventory');
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    let n = 0;
    for (const v of byId.values()) {
      if (!v.complete) continue;
      checkInterrupt(); // fdl gc stopped by a signal: nothing removed yet
      // A complete version whose catalog cannot be read stops everything: its files stay unknown.
      if (!isVersionId(v.id)) throw new Error(`versions/${v.id}: not a version id`);
      const rec = parseVersionJson((await target.read(`versions/${v.id}/version.json`))!.body, v.id);
      const cat = rec.catalogs[0]!;
      const file = join(tmp, `${n}.duckdb`);
      await store.download(`versions/${v.id}/${cat.path}`, file, { sha256: cat.sha256, expectedSize: cat.size });
      const alias = `inv${n++}`;
      try {
        const lake = await openCatalog(conn, file, alias);
        for (const t of lake.tables) {
          for (const f of t.files) {
            anyFiles.add(f.path);
            if (!v.expired) liveFiles.add(f.path);
          }
        }
      } catch (e) {
        throw new Error(
          `version ${v.id}: its catalog cannot be read, so the files it needs are unknown: ${(e as Error).message.split('\n')[0]}`,
        );
      } finally {
        await conn.run(`DETACH IF EXISTS ${quoteIdent(alias)}`).catch(() => undefined);
        await rm(file, { force: true });
      }
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    await rm(tmp, { recursive: true, force: true });
  }
  return {
    dataDir: settings.dataDir,
    versions: [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    liveFiles,
    anyFiles,
    dataObjects,
  };
}

/** The writer, its start and its listed keys from a pending marker (write-journal.ts), or null when it cannot be read. */
async function readMarker(
  target: WriteTarget,
  id: string,
): Promise<{ writer: WriterId | null; started: number | null; keys: string[] } | null> {
  try {
    const r = await target.read(`versions/${id}/${PENDING_MARKER}`);
    if (!r) return null;
    const j = JSON.parse(r.body.toString('utf8')) as Partial<MarkerBody>;
    const writer =
      typeof j.host === 'string' && Number.isInteger(j.pid)
        ? {
            host: j.host,
            pid: j.pid!,
            ...(typeof j.boot === 'string' ? { boot: j.boot } : {}),
            ...(Number.isInteger(j.start) ? { start: j.start } : {}),
          }
        : null;
    const started =
      typeof j.started === 'string' && Number.isFinite(Date.parse(j.started)) ? Date.parse(j.started) : null;
    const keys = Array.isArray(j.keys) ? j.keys.filter((k): k is string => typeof k === 'string') : [];
    return { writer, started, keys };
  } catch {
    return null;
  }
}
