/**
 * The PostgreSQL catalog emulation's files (pg/catalog/install.ts: `fdl_pg`, 7 MB, and the first
 * `fdl_pg_versions`), written once per gateway process and attached READ_ONLY by every engine after it —
 * each repository's two instances, and an engine that replaces one DuckDB invalidated — instead of once
 * per engine: writing them took ≈ 1 s of CPU (4 s of wall time at load 15), attaching them 20 ms.
 * The files are the same for every engine: nothing in them names a repository or a version.
 *
 * The folder is emptied on first use: a previous process's files met there (a restarted gateway over the
 * same cache) are never attached. `fdl_pg_versions` is copied into each engine's own folder, since its
 * views builder replaces that file with copies holding the repository's versions (versions/version-catalogs.ts).
 */
import { access, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { compatFiles, installCompat } from '../pg/catalog/index.js';
import { createEngine, GATEWAY_VERSION } from './engine.js';

export interface EmulationFilePaths {
  /** `fdl_pg`: attached READ_ONLY by every instance. */
  readonly compat: string;
  /** The first `fdl_pg_versions` (no version's rows): each engine attaches its own copy. */
  readonly versions: string;
}

export class EmulationFiles {
  private files: Promise<EmulationFilePaths> | undefined;

  /** `dir`: this process's own folder (emptied on first use). */
  constructor(private readonly dir: string) {}

  /**
   * The files, written on the first call; a failed write is tried again by the next call, and so are files
   * gone since (a cache folder cleaned under a running gateway: the engines attached already keep theirs open).
   */
  async written(): Promise<EmulationFilePaths> {
    const known = this.files;
    if (known) {
      const files = await known.catch(() => null);
      if (files && (await present(files))) return files;
      if (this.files !== known) return this.written();
    }
    const writing = this.write();
    this.files = writing;
    writing.catch(() => {
      if (this.files === writing) this.files = undefined;
    });
    return writing;
  }

  private async write(): Promise<EmulationFilePaths> {
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
    // an instance of its own, with the engine's settings (the tables' column types are bound under them),
    // closed once the files are written
    const writer = await createEngine({
      threads: 1,
      memoryLimit: '256MB',
      tempDirectory: join(this.dir, 'tmp'),
      compat: false,
    });
    try {
      const conn = await writer.connect();
      try {
        await installCompat(conn, { gatewayVersion: GATEWAY_VERSION, catalogDir: this.dir });
      } finally {
        conn.disconnectSync();
      }
    } finally {
      writer.closeSync();
    }
    return compatFiles(this.dir);
  }
}

async function present(files: EmulationFilePaths): Promise<boolean> {
  try {
    await Promise.all([access(files.compat), access(files.versions)]);
    return true;
  } catch {
    return false;
  }
}
