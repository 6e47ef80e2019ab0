/**
 * One DuckDB instance per served repository, each sealed to that repository's files alone: its
 * catalogs and data folder when local, its own area of the file cache when remote, and its own temp
 * directory. This is the engine's line of containment, which holds even where admission were wrong:
 * a session's DuckDB connection belongs to its repository's instance, so another repository's
 * versions are not attached there and its files are outside what DuckDB may open.
 * Refs within a repository are admission's to keep apart (grants per ref): docs/security.md.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { createEngine, sealEngine } from './engine.js';
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
}

/** The smallest share of memory an instance gets, however many repositories there are (capped by the limit itself). */
const MIN_SHARE = 128 * 1024 * 1024;

export class Engines {
  private readonly instances = new Map<string, Promise<DuckDBInstance>>();
  private seq = 0;

  /** `dirsOf(repo)`: the directories that repository's versions read; null for an unknown one. */
  constructor(
    private readonly opts: EnginesOptions,
    private readonly dirsOf: (repo: string) => string[] | null,
  ) {}

  /** The sealed instance of a repository, created on first use. */
  for(repo: string): Promise<DuckDBInstance> {
    const known = this.instances.get(repo);
    if (known) return known;
    const dirs = this.dirsOf(repo);
    if (!dirs) return Promise.reject(new SqlError(SQLSTATE.invalidCatalogName, `database "${repo}" does not exist`));
    const created = this.create(dirs);
    this.instances.set(repo, created);
    created.catch(() => this.instances.delete(repo));
    return created;
  }

  /** Instances created so far (process-wide probes, shutdown). */
  all(): Promise<DuckDBInstance>[] {
    return [...this.instances.values()];
  }

  private async create(dirs: string[]): Promise<DuckDBInstance> {
    const total = this.opts.memoryLimit ? parseByteSize(this.opts.memoryLimit) : null;
    // Never more than the operator's limit, never less than a workable share of it.
    const share =
      total === null
        ? undefined
        : `${Math.max(Math.min(total, MIN_SHARE), Math.floor(total / Math.max(1, this.opts.repositories)))}B`;
    // DuckDB creates its temp directory but not the folders above it.
    await mkdir(this.opts.tempRoot, { recursive: true });
    const instance = await createEngine({
      memoryLimit: share,
      threads: this.opts.threads,
      tempDirectory: join(this.opts.tempRoot, `e${++this.seq}`),
      maxTempDirectorySize: this.opts.maxTempDirectorySize,
    });
    await sealEngine(instance, dirs);
    return instance;
  }
}
