/**
 * The worker side of analysis-pool.ts: analyses long statement texts with a private DuckDB instance
 * that only ever parses (json_serialize_sql with the text as a parameter; nothing bound or run, no
 * catalog, no file access, configuration locked), so the parse tree's JSON is parsed and walked here,
 * never on the gateway's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { SqlError } from '../errors.js';
import { analyzeText, serializeOn } from './analysis.js';

export interface AnalysisTask {
  id: number;
  sql: string;
}
export type AnalysisReply =
  | { id: number; ok: true; analysis: unknown }
  | { id: number; ok: false; sqlstate?: string; message: string; detail?: string; hint?: string };

let conn: Promise<DuckDBConnection> | null = null;

async function parserConnection(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    memory_limit: '256MB',
    enable_external_access: 'false',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    lock_configuration: 'true',
  });
  return instance.connect();
}

parentPort!.on('message', (task: AnalysisTask) => {
  void (async () => {
    try {
      conn ??= parserConnection();
      const c = await conn;
      const analysis = await analyzeText((text) => serializeOn(c, text), task.sql);
      parentPort!.postMessage({ id: task.id, ok: true, analysis } satisfies AnalysisReply);
    } catch (e) {
      const reply: AnalysisReply = e instanceof SqlError
        ? { id: task.id, ok: false, sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint }
        : { id: task.id, ok: false, message: (e as Error)?.message ?? String(e) };
      parentPort!.postMessage(reply);
    }
  })();
});
