/**
 * A publisher command's scratch space: a local work folder that records its writer (work-folder.ts)
 * and an in-memory DuckDB whose running statement SIGINT/SIGTERM interrupt (interrupt.ts). Closed,
 * all of it goes: the hook, the connection, the instance, the folder.
 */
import { rm } from 'node:fs/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { onInterrupt } from './interrupt.js';
import { makeWorkFolder } from './work-folder.js';

export interface Workspace {
  readonly tmp: string;
  readonly conn: DuckDBConnection;
  close(): Promise<void>;
}

export async function openWorkspace(kind: Parameters<typeof makeWorkFolder>[0]): Promise<Workspace> {
  const tmp = await makeWorkFolder(kind);
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  try {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
  const unhook = onInterrupt(() => conn.interrupt());
  return {
    tmp,
    conn,
    async close() {
      unhook();
      conn.closeSync();
      instance.closeSync();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
