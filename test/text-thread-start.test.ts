/**
 * The text thread's start (engine/text-thread.ts) falls on the first catalog text of 2–8 KiB a client
 * sends (SQLAlchemy 2's get_columns, psql's `\d+`): a thread that only rewrites must not map DuckDB's
 * native library, which only the analysis' parse-only DuckDB needs. Run in a child process that never
 * loads DuckDB itself, so the process's shared objects tell what the thread loaded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/gateway.js';

const POOL = join(ROOT, 'dist', 'src', 'engine', 'text-pool.js');

/** Runs `steps` (text-pool calls) in a child process; answers whether libduckdb was mapped after each. */
function duckdbMappedAfter(steps: string[]): boolean[] {
  const script = `
    const { rewriteOffThread, analyzeOffThread } = await import(${JSON.stringify(POOL)});
    const mapped = () => process.report.getReport().sharedObjects.some((s) => /libduckdb/.test(s));
    const catalog = "select a.attname, format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a where a.attnum > 0 /* ${'x'.repeat(2_400)} */";
    const out = [mapped()];
    ${steps.map((s) => `await ${s}; out.push(mapped());`).join('\n')}
    process.stdout.write(JSON.stringify(out));
    process.exit(0);
  `;
  // a file, not `-e`: the worker inherits the process's flags, and `--input-type` refuses a file
  const dir = mkdtempSync(join(tmpdir(), 'text-thread-start-'));
  try {
    writeFileSync(join(dir, 'steps.mjs'), script);
    const out = execFileSync(process.execPath, [join(dir, 'steps.mjs')], { timeout: 120_000 });
    return JSON.parse(out.toString()) as boolean[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the text thread's rewrite of a catalog text does not load DuckDB; its first analysis does", () => {
  const [before, afterRewrite, afterAnalysis] = duckdbMappedAfter([
    `rewriteOffThread(catalog, 'ann')`,
    `analyzeOffThread(catalog.replace('/*', '/* ' + 'y'.repeat(8192)), 'ann')`,
  ]);
  assert.equal(before, false, 'the child process loaded DuckDB before the thread started');
  assert.equal(afterRewrite, false, "the thread's rewrite mapped DuckDB's native library");
  assert.equal(afterAnalysis, true, "the thread's analysis did not load DuckDB: the check above sees nothing");
});
