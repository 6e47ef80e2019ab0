/**
 * A version's views database as the engine holds it: a file in the instance's own temp directory,
 * attached READ_ONLY once built, so DuckDB itself refuses any CREATE, REPLACE, DROP or COMMENT in
 * it, whatever statement reaches it. A view that must change later (a remote table's view over the
 * files a statement needs, a damaged local table's view once its files verify) is changed in a copy
 * attached under a random name; the copy then takes the version's name in one `ATTACH OR REPLACE …
 * (READ_ONLY)`, so a statement binding meanwhile sees the old views or the new ones, never a
 * writable or a missing database. Changes are serial.
 *
 * An engine without a temp directory of its own (made for a test) keeps the database in memory,
 * writable, and changes it in place.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lit, qi } from '../lake/sql.js';
import { Slots } from '../serial.js';

export class ViewsDatabase {
  private readonly changes = new Slots();

  private constructor(
    private readonly engine: DuckDBInstance,
    readonly dbName: string,
    /** The file attached now (undefined: in memory). */
    private file: string | undefined,
    private readonly dir: string | undefined,
  ) {}

  /** Where `dbName`'s views will be built: a fresh file in a folder of the instance's temp directory. */
  static async plan(engine: DuckDBInstance, conn: DuckDBConnection, dbName: string): Promise<ViewsDatabase> {
    const r = await conn.runAndReadAll("SELECT current_setting('temp_directory')");
    const temp = String(r.getRows()[0]![0] ?? '');
    if (!isAbsolute(temp)) return new ViewsDatabase(engine, dbName, undefined, undefined);
    const dir = join(temp, 'views');
    await mkdir(dir, { recursive: true });
    const views = new ViewsDatabase(engine, dbName, undefined, dir);
    views.file = views.freshFile();
    return views;
  }

  /** What to build the database in first (attachCatalog's `file`): the file, or undefined for memory. */
  get buildFile(): string | undefined {
    return this.file;
  }

  /** Once built under `dbName` on `conn`: attached again READ_ONLY. */
  async seal(conn: DuckDBConnection): Promise<void> {
    if (!this.file) return;
    await conn.run(`DETACH ${qi(this.dbName)}`);
    await conn.run(`ATTACH ${lit(this.file)} AS ${qi(this.dbName)} (READ_ONLY)`);
  }

  /**
   * `work` changes the views of the database it is given by name (a writable copy, or the
   * in-memory database itself); the result replaces the version's database in one step.
   */
  async change(work: (conn: DuckDBConnection, db: string) => Promise<void>): Promise<void> {
    await this.changes.run(async () => {
      const conn = await this.engine.connect();
      try {
        const current = this.file;
        if (!current) return await work(conn, this.dbName);
        const next = this.freshFile();
        const scratch = `__fdl_views_${randomBytes(8).toString('hex')}`;
        try {
          await copyFile(current, next);
          await conn.run(`ATTACH ${lit(next)} AS ${qi(scratch)}`);
          try {
            // one commit (one write of the copy's log) for every view the change replaces
            await conn.run('BEGIN');
            await work(conn, scratch);
            await conn.run('COMMIT');
          } catch (e) {
            await conn.run('ROLLBACK').catch(() => undefined);
            throw e;
          } finally {
            await conn.run(`DETACH ${qi(scratch)}`);
          }
          await conn.run(`ATTACH OR REPLACE ${lit(next)} AS ${qi(this.dbName)} (READ_ONLY)`);
        } catch (e) {
          await rm(next, { force: true }).catch(() => undefined);
          throw e;
        }
        this.file = next;
        await rm(current, { force: true });
      } finally {
        conn.disconnectSync();
      }
    });
  }

  /** The file removed (after the database was detached, or when building it failed). */
  async remove(): Promise<void> {
    await this.changes.run(async () => {
      if (this.file) await rm(this.file, { force: true });
    });
  }

  private freshFile(): string {
    const stem = this.dbName.replace(/[^A-Za-z0-9._-]/g, '_');
    return join(this.dir!, `${stem}-${randomBytes(6).toString('hex')}.duckdb`);
  }
}
