/**
 * A version's views database as the engine holds it: a file in the views folder of the repository's
 * sessions' instance, attached there only ever READ_ONLY, so DuckDB itself refuses any CREATE,
 * INSERT, REPLACE, DROP or COMMENT in it, whatever statement reaches it, at every moment.
 *
 * The file is written by the repository's views builder (engine/engines.ts), a DuckDB instance of
 * the gateway's own that no session connection belongs to: the first build under the version's name,
 * and every later change (a remote table's view over the files a statement needs, a damaged local
 * table's view once its files verify) in a copy under a fresh file name. The builder checkpoints and
 * detaches the file; only then does the sessions' instance attach it — a change by one
 * `ATTACH OR REPLACE … (READ_ONLY)`, so a statement binding meanwhile sees the old views or the new
 * ones, never a missing database. Views are stored as SQL and bound where they are read: the names a
 * view's SQL uses (the version's catalog under its alias, the database's own name, its macros) are
 * the same in both instances. Changes are serial.
 *
 * The catalog emulation's per-version rows (`fdl_pg_versions`) are held the same way, from a first file
 * written at install (`attached`): version-catalogs.ts.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RepositoryEngine } from '../engine/engines.js';
import { lit, qi } from '../lake/sql.js';
import { Slots } from '../serial.js';

export class ViewsDatabase {
  private readonly changes = new Slots();
  /** The file the sessions' instance has attached (undefined: not built yet, or removed). */
  private file: string | undefined;
  private catalogAttached = false;

  private constructor(
    private readonly engine: RepositoryEngine,
    readonly dbName: string,
    /** The version's catalog, attached READ_ONLY in the builder under the alias the views' SQL names. */
    private readonly catalog: { file: string; alias: string } | null,
    /** Where its files are written (the builder may write there). */
    private readonly dir = engine.viewsDir,
  ) {}

  static plan(engine: RepositoryEngine, dbName: string, catalog: { file: string; alias: string }): ViewsDatabase {
    return new ViewsDatabase(engine, dbName, catalog);
  }

  /** A database whose first file someone else wrote and the sessions' instance has attached READ_ONLY as `dbName`. */
  static attached(engine: RepositoryEngine, dbName: string, file: string): ViewsDatabase {
    const db = new ViewsDatabase(engine, dbName, null, dirname(file));
    db.file = file;
    return db;
  }

  /**
   * `work` builds the database on a builder connection, in `file` (which it attaches as `dbName`
   * itself: attachCatalog); once it returns, the file is sealed and attached READ_ONLY as `dbName`
   * in the sessions' instance.
   */
  async build(work: (builder: DuckDBConnection, file: string) => Promise<void>): Promise<void> {
    await this.changes.run(async () => {
      const file = this.freshFile();
      try {
        await this.inBuilder(async (b) => {
          try {
            await work(b, file);
            await this.seal(b);
          } catch (e) {
            await b.run(`DETACH DATABASE IF EXISTS ${qi(this.dbName)}`).catch(() => undefined);
            throw e;
          }
        });
        await this.attachInSessions(file, false);
      } catch (e) {
        await rm(file, { force: true }).catch(() => undefined);
        await rm(`${file}.wal`, { force: true }).catch(() => undefined);
        throw e;
      }
    });
  }

  /**
   * `work` changes the views of a copy of the database, attached as `dbName` on a builder
   * connection; the copy then replaces the version's database in the sessions' instance in one step.
   */
  async change(work: (builder: DuckDBConnection, db: string) => Promise<void>): Promise<void> {
    await this.changes.run(async () => {
      const current = this.file;
      if (!current) throw new Error(`views database ${this.dbName} is not built`);
      const next = this.freshFile();
      try {
        await copyFile(current, next);
        await this.inBuilder(async (b) => {
          await b.run(`ATTACH ${lit(next)} AS ${qi(this.dbName)}`);
          try {
            // one commit (one write of the copy's log) for every view the change replaces
            await b.run('BEGIN');
            await work(b, this.dbName);
            await b.run('COMMIT');
          } catch (e) {
            await b.run('ROLLBACK').catch(() => undefined);
            await b.run(`DETACH DATABASE IF EXISTS ${qi(this.dbName)}`).catch(() => undefined);
            throw e;
          }
          await this.seal(b);
        });
        await this.attachInSessions(next, true);
      } catch (e) {
        await rm(next, { force: true }).catch(() => undefined);
        await rm(`${next}.wal`, { force: true }).catch(() => undefined);
        throw e;
      }
      await rm(current, { force: true });
    });
  }

  /** The bytes of the file the sessions' instance has attached (0: none). */
  async fileBytes(): Promise<number> {
    return this.file ? (await stat(this.file)).size : 0;
  }

  /** The file removed and the builder's catalog detached (after the sessions' instance detached the database, or when building failed). */
  async remove(): Promise<void> {
    await this.changes.run(async () => {
      try {
        if (this.catalogAttached && this.catalog) {
          const b = await this.engine.builder.connect();
          try {
            await b.run(`DETACH DATABASE IF EXISTS ${qi(this.catalog.alias)}`);
          } finally {
            b.disconnectSync();
          }
          this.catalogAttached = false;
        }
      } finally {
        // also when the builder is gone (a replaced engine: engine-failure.ts)
        if (this.file) await rm(this.file, { force: true });
        this.file = undefined;
      }
    });
  }

  /** `work` on a fresh builder connection, with the version's catalog attached there. */
  private async inBuilder(work: (b: DuckDBConnection) => Promise<void>): Promise<void> {
    const b = await this.engine.builder.connect();
    try {
      if (this.catalog && !this.catalogAttached) {
        await b.run(`ATTACH ${lit(this.catalog.file)} AS ${qi(this.catalog.alias)} (READ_ONLY)`);
        this.catalogAttached = true;
      }
      await work(b);
    } finally {
      b.disconnectSync();
    }
  }

  /** Everything in the file itself (no log beside it), and the builder's hold on it let go. */
  private async seal(b: DuckDBConnection): Promise<void> {
    try {
      await b.run(`CHECKPOINT ${qi(this.dbName)}`);
    } catch (e) {
      // a failed checkpoint (the builder out of memory) must not leave the copy attached in the builder: every
      // later change of this database failed "already exists" until a restart (attacker review, session 49)
      await b.run(`DETACH DATABASE IF EXISTS ${qi(this.dbName)}`).catch(() => undefined);
      throw e;
    }
    await b.run(`DETACH ${qi(this.dbName)}`);
  }

  private async attachInSessions(file: string, replace: boolean): Promise<void> {
    const conn = await this.engine.sessions.connect();
    try {
      await conn.run(`ATTACH ${replace ? 'OR REPLACE ' : ''}${lit(file)} AS ${qi(this.dbName)} (READ_ONLY)`);
    } finally {
      conn.disconnectSync();
    }
    this.file = file;
  }

  private freshFile(): string {
    const stem = this.dbName.replace(/[^A-Za-z0-9._-]/g, '_');
    return join(this.dir, `${stem}-${randomBytes(6).toString('hex')}.duckdb`);
  }
}
