/**
 * The worker side of text-pool.ts: the work on one long statement text that would otherwise hold the
 * event loop — its analysis (a private DuckDB instance that only ever parses: json_serialize_sql with
 * the text as a parameter; nothing bound or run, no catalog, no file access, configuration locked;
 * the parse tree's JSON is parsed and walked here) and the PostgreSQL-grammar rewrite (pgsql-parser
 * is synchronous WASM).
 */
import { parentPort } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { SqlError } from '../errors.js';
import { analyzeText, serializeOn } from '../analysis/analysis.js';
import { rewriteForDuckDBDetailed } from '../pg/rewrite.js';

export interface TextTask {
  id: number;
  op: 'analyze' | 'rewrite';
  sql: string;
}
export type TextReply =
  | { id: number; ok: true; value: unknown }
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

async function run(task: TextTask): Promise<unknown> {
  if (task.op === 'rewrite') return rewriteForDuckDBDetailed(task.sql);
  conn ??= parserConnection();
  const c = await conn;
  return analyzeText((text) => serializeOn(c, text), task.sql);
}

parentPort!.on('message', (task: TextTask) => {
  run(task).then(
    (value) => parentPort!.postMessage({ id: task.id, ok: true, value } satisfies TextReply),
    (e: unknown) => {
      const reply: TextReply =
        e instanceof SqlError
          ? { id: task.id, ok: false, sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint }
          : { id: task.id, ok: false, message: (e as Error)?.message ?? String(e) };
      parentPort!.postMessage(reply);
    },
  );
});
