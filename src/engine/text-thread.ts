/**
 * The worker side of text-pool.ts: the work on one long statement text that would otherwise hold the
 * event loop — its analysis (a private DuckDB instance that only ever parses: json_serialize_sql with
 * the text as a parameter; nothing bound or run, no catalog, no file access, configuration locked;
 * the parse tree's JSON is parsed and walked here) and the PostgreSQL-grammar rewrite (pgsql-parser
 * is synchronous WASM). A reply is serialized here and sent as bytes: one over the task's reply
 * ceiling (text-pool.ts) is refused here, so the main thread never deserialises it.
 */
import { parentPort } from 'node:worker_threads';
import { serialize } from 'node:v8';
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { analyzeText, serializeOn } from '../analysis/analysis.js';
import { rewriteForDuckDBDetailed } from '../pg/rewrite.js';

export interface TextTask {
  id: number;
  op: 'analyze' | 'rewrite';
  sql: string;
  /** The most bytes the serialized value may take. */
  maxReplyBytes: number;
}
export type TextReply =
  | { id: number; ok: true; value: ArrayBuffer }
  | { id: number; ok: false; sqlstate?: string; message: string; detail?: string; hint?: string };

let conn: Promise<DuckDBConnection> | null = null;

async function parserConnection(): Promise<DuckDBConnection> {
  // loaded with the first analysis: a thread that only rewrites never maps DuckDB's native library
  const { DuckDBInstance } = await import('@duckdb/node-api');
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

function serialized(task: TextTask, value: unknown): ArrayBuffer {
  const bytes = serialize(value);
  if (bytes.byteLength > task.maxReplyBytes)
    throw new SqlError(
      SQLSTATE.statementTooComplex,
      `statement is too complex: the gateway's ${task.op === 'rewrite' ? 'translation' : 'analysis'} of its ${task.sql.length} characters takes ${bytes.byteLength} bytes, over its limit of ${task.maxReplyBytes}`,
      undefined,
      'Split it into smaller statements.',
    );
  // a Buffer may be a view of a larger one: the reply owns exactly its bytes (transferred, not copied, when it is all of it)
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return (
    whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  ) as ArrayBuffer;
}

parentPort!.on('message', (task: TextTask) => {
  run(task)
    .then((value) => serialized(task, value))
    .then(
      (value) => parentPort!.postMessage({ id: task.id, ok: true, value } satisfies TextReply, [value]),
      (e: unknown) => {
        const reply: TextReply =
          e instanceof SqlError
            ? { id: task.id, ok: false, sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint }
            : { id: task.id, ok: false, message: (e as Error)?.message ?? String(e) };
        parentPort!.postMessage(reply);
      },
    );
});
