/**
 * One DuckDB instance per served repository, each sealed to that repository's files alone: its
 * catalogs and data folder when local, its own area of the file cache when remote, and its own temp
 * directory. This is the engine's line of containment, which holds even where admission were wrong:
 * a session's DuckDB connection belongs to its repository's instance, so another repository's
 * versions are not attached there and its files are outside what DuckDB may open.
 * Refs within a repository are admission's to keep apart (grants per ref): docs/security.md.
 *
 * Each repository has a second instance, the views builder: the gateway's own, no session connection
 * ever belongs to it. It writes the versions' views databases (versions/views-database.ts), which the
 * sessions' instance only ever attaches READ_ONLY; so no database a session could write to is ever
 * attached where sessions run, not even while a view changes. It also writes the catalog emulation's
 * rows of each version (versions/version-catalogs.ts), which the sessions' instance attaches READ_ONLY
 * too, as it does the emulation itself (pg/catalog/install.ts). It is sealed as the sessions' one is,
 * to the same folders plus the views and catalog folders it writes (it binds each view it creates:
 * Parquet footers and the version's catalog are read there too).
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { createEngine, sealEngine } from './engine.js';
import { compatFiles, COMPAT_DB } from '../pg/catalog/index.js';
import { EmulationFiles } from './emulation-files.js';
import { quoteIdent, quoteLiteral } from '../quote.js';
import { retireSessionConnections } from './session-connections.js';
import { parseByteSize } from './temp-ceiling.js';

export interface EnginesOptions {
  /** The operator's memory ceiling for all of DuckDB: shared out evenly between repositories. */
  memoryLimit?: string;
  threads?: number;
  /** Each instance spills into its own directory under this one (the temp ceiling watches it). */
  tempRoot: string;
  maxTempDirectorySize?: string;
  /** Repositories served at start: the memory ceiling's divisor. */
  repositories: number;
  /** The catalog emulation's files, written once for every engine (./emulation-files.ts): a folder of this process's own, outside `tempRoot`. */
  emulationDir: string;
}

/** The smallest share of memory an instance gets, however many repositories there are (capped by the limit itself). */
const MIN_SHARE = 128 * 1024 * 1024;
/** The views builder's memory (never more than the sessions' share): it binds views and reads Parquet footers, never a table's rows. */
const BUILDER_MEMORY = 128 * 1024 * 1024;

/** A repository's two sealed instances, and the folder of the sessions' one where views databases live. */
export interface RepositoryEngine {
  /** Every session connection of the repository belongs to this one. */
  readonly sessions: DuckDBInstance;
  /** The gateway's own: writes views databases into `viewsDir`, never runs a session's statement. */
  readonly builder: DuckDBInstance;
  readonly viewsDir: string;
  /**
   * The catalog emulation's first per-version database (no version's rows), attached READ_ONLY in the
   * sessions' instance as `fdl_pg_versions`; the builder adds and removes versions' rows in copies of it
   * (versions/version-catalogs.ts). The emulation's own `fdl_pg` is attached READ_ONLY in both instances.
   */
  readonly catalogFile: string;
  /** Which of the repository's engines this is: a new one replaces one DuckDB invalidated (engine-failure.ts). */
  readonly id: number;
}

export interface RepositoryEngineOptions {
  memoryLimit?: string;
  threads?: number;
  /** The sessions' instance's own temp directory (the views folder is inside it). */
  tempDirectory: string;
  maxTempDirectorySize?: string;
}

/**
 * Both instances of one repository, each sealed: sessions' to `dirs`, the builder's to `dirs`, the views and
 * catalog folders. The catalog emulation's files are `emulation`'s, written once per process; without it, a
 * set of its own in the engine's temp directory.
 */
export async function createRepositoryEngine(
  dirs: string[],
  opts: RepositoryEngineOptions,
  id = 0,
  emulation = new EmulationFiles(join(opts.tempDirectory, 'emulation')),
): Promise<RepositoryEngine> {
  const viewsDir = join(opts.tempDirectory, 'views');
  const catalogDir = join(opts.tempDirectory, 'catalog');
  const shared = await emulation.written();
  await mkdir(viewsDir, { recursive: true });
  // the engine's own fdl_pg_versions, which its builder replaces by copies holding its versions' rows: never a
  // previous process's (a restarted gateway numbers its engines from 1 again, over the same cache)
  await rm(catalogDir, { recursive: true, force: true });
  await mkdir(catalogDir, { recursive: true });
  const catalog = { compat: shared.compat, versions: compatFiles(catalogDir).versions };
  await copyFile(shared.versions, catalog.versions);
  const sessions = await createEngine({ ...opts, catalog });
  await sealEngine(sessions, dirs);
  // DuckDB removes a temp directory it created when the instance closes: the builder's is its own.
  const builder = await createEngine({
    memoryLimit: `${Math.min(BUILDER_MEMORY, opts.memoryLimit ? parseByteSize(opts.memoryLimit) : BUILDER_MEMORY)}B`,
    threads: 1,
    tempDirectory: `${opts.tempDirectory}-builder`,
    compat: false,
  });
  // the builder computes a version's catalog rows, which read the emulation's macros and PostgreSQL's rows
  const b = await builder.connect();
  try {
    await b.run(`ATTACH ${quoteLiteral(catalog.compat)} AS ${quoteIdent(COMPAT_DB)} (READ_ONLY)`);
  } finally {
    b.disconnectSync();
  }
  await sealEngine(builder, [...dirs, viewsDir, catalogDir]);
  return { sessions, builder, viewsDir, catalogFile: catalog.versions, id };
}

export class Engines {
  private readonly instances = new Map<string, Promise<RepositoryEngine>>();
  /** The engine each repository's new sessions get, once created. */
  private readonly current = new Map<string, RepositoryEngine>();
  /** Which engine a session's connection belongs to. */
  private readonly engineOf = new WeakMap<DuckDBConnection, RepositoryEngine>();
  private seq = 0;
  private readonly emulation: EmulationFiles;

  /** `dirsOf(repo)`: the directories that repository's versions read; null for an unknown one. */
  constructor(
    private readonly opts: EnginesOptions,
    private readonly dirsOf: (repo: string) => string[] | null,
  ) {
    this.emulation = new EmulationFiles(opts.emulationDir);
  }

  /** The sealed instance of a repository's sessions, created on first use. */
  async for(repo: string): Promise<DuckDBInstance> {
    return (await this.both(repo)).sessions;
  }

  /** A session's connection to the repository's sessions' instance, remembered as that engine's. */
  async connect(
    repo: string,
    open: (sessions: DuckDBInstance) => Promise<DuckDBConnection>,
  ): Promise<DuckDBConnection> {
    const engine = await this.both(repo);
    const conn = await open(engine.sessions);
    this.engineOf.set(conn, engine);
    return conn;
  }

  /**
   * DuckDB invalidated the instance `conn` belongs to: the repository's next session gets a new
   * engine (once, however many sessions of the broken one report it; null for the later reports).
   * The broken one is closed and its idle session connections disconnected: DuckDB frees an instance
   * (memory, open catalog and views files) only with the last connection to it, so the caller lets
   * go of the versions attached there too (Versions.retireEngine), and the broken one's sessions end
   * as they meet the failure, their connections then dropped.
   */
  retire(repo: string, conn: DuckDBConnection): RepositoryEngine | null {
    const broken = this.engineOf.get(conn);
    const current = this.current.get(repo);
    if (!broken || current !== broken) return null;
    this.current.delete(repo);
    this.instances.delete(repo);
    retireSessionConnections(broken.sessions);
    for (const instance of [broken.sessions, broken.builder]) {
      try {
        instance.closeSync();
      } catch {
        /* closed already */
      }
    }
    return broken;
  }

  /** Both sealed instances of a repository (the sessions' and the views builder), created on first use. */
  both(repo: string): Promise<RepositoryEngine> {
    const known = this.instances.get(repo);
    if (known) return known;
    const dirs = this.dirsOf(repo);
    if (!dirs) return Promise.reject(new SqlError(SQLSTATE.invalidCatalogName, `database "${repo}" does not exist`));
    const created = this.create(dirs);
    this.instances.set(repo, created);
    created.then(
      (engine) => {
        if (this.instances.get(repo) === created) this.current.set(repo, engine);
      },
      () => this.instances.delete(repo),
    );
    return created;
  }

  private async create(dirs: string[]): Promise<RepositoryEngine> {
    const total = this.opts.memoryLimit ? parseByteSize(this.opts.memoryLimit) : null;
    // Never more than the operator's limit, never less than a workable share of it.
    const share =
      total === null
        ? undefined
        : `${Math.max(Math.min(total, MIN_SHARE), Math.floor(total / Math.max(1, this.opts.repositories)))}B`;
    // DuckDB creates its temp directory but not the folders above it.
    await mkdir(this.opts.tempRoot, { recursive: true });
    return createRepositoryEngine(
      dirs,
      {
        memoryLimit: share,
        threads: this.opts.threads,
        tempDirectory: join(this.opts.tempRoot, `e${++this.seq}`),
        maxTempDirectorySize: this.opts.maxTempDirectorySize,
      },
      this.seq,
      this.emulation,
    );
  }
}
