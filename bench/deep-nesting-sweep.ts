/**
 * Which of DuckDB's functions crash the process on deeply nested input, by DuckDB's own list: every
 * scalar and aggregate overload of `duckdb_functions()` taking a text, JSON, BLOB or generic (ANY, T,
 * K, V) argument is called with each such argument in turn replaced by a deeply nested payload (JSON
 * arrays and objects, parentheses in SQL text, WKT collections), the others given a plain value; then
 * the casts, type texts and SQL shapes listed in CASTS_AND_PARSER. Calls run in a child process, in
 * order; when the child dies (SIGSEGV from a stack overflow) the call it was running is recorded and a
 * new child goes on from the next one. A call still running after --timeout seconds is recorded as
 * slow and its child killed. Raw DuckDB, without the gateway's guards: the list of what must be
 * guarded (docs/security.md, "Deep nesting").
 *
 *   npx tsc -p . && node dist/bench/deep-nesting-sweep.js [--depth 1000000] [--timeout 8] [--only json_]
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);

interface Call {
  what: string;
  sql: string;
}

/** Deeply nested texts of about `n` levels, built by DuckDB (the statement itself stays short). */
export function payloads(n: number): Record<string, string> {
  return {
    array: `(repeat('[', ${n}) || repeat(']', ${n}))`,
    object: `(repeat('{"a":', ${n}) || '1' || repeat('}', ${n}))`,
    parens: `('select ' || repeat('(', ${n}) || '1' || repeat(')', ${n}))`,
    wkt: `(repeat('GEOMETRYCOLLECTION(', ${n}) || 'POINT(1 2)' || repeat(')', ${n}))`,
  };
}

const PLAIN: Record<string, string> = {
  BIGINT: '1',
  INTEGER: '1',
  SMALLINT: '1',
  TINYINT: '1',
  UBIGINT: '1',
  UINTEGER: '1',
  USMALLINT: '1',
  UTINYINT: '1',
  HUGEINT: '1',
  UHUGEINT: '1',
  DOUBLE: '1.0',
  FLOAT: '1.0',
  DECIMAL: '1.0',
  VARCHAR: "'a'",
  JSON: "'1'::JSON",
  BOOLEAN: 'true',
  DATE: "DATE '2020-01-01'",
  TIMESTAMP: "TIMESTAMP '2020-01-01'",
  'TIMESTAMP WITH TIME ZONE': "TIMESTAMPTZ '2020-01-01'",
  INTERVAL: 'INTERVAL 1 DAY',
  BLOB: "'a'::BLOB",
  ANY: '1',
  T: '1',
  K: '1',
  V: '1',
  LAMBDA: 'lambda x: x',
};
const plain = (type: string) => PLAIN[type] ?? (type.endsWith('[]') ? '[1]' : 'NULL');

/** The deep values an argument of this type is given, by payload name. */
function deepFor(type: string, p: Record<string, string>): Record<string, string> {
  if (type === 'VARCHAR') return { array: p.array!, object: p.object!, parens: p.parens!, wkt: p.wkt! };
  if (type === 'JSON') return { array: `${p.array}::JSON`, object: `${p.object}::JSON` };
  if (type === 'BLOB') return { array: `${p.array}::BLOB` };
  if (type === 'GEOMETRY') return { wkt: `${p.wkt}::GEOMETRY` };
  if (['ANY', 'T', 'K', 'V'].includes(type))
    return { array: p.array!, json_array: `${p.array}::JSON`, json_object: `${p.object}::JSON`, parens: p.parens! };
  return {};
}

/** Casts, type texts and SQL shapes that nest without a function call (n levels). */
function castsAndParser(n: number): Call[] {
  const p = payloads(n);
  const m = 60_000; // a flat chain within the gateway's 256 KiB statement ceiling
  return [
    { what: 'cast array text ::JSON', sql: `select length(${p.array}::JSON::VARCHAR)` },
    { what: 'cast object text ::JSON', sql: `select length(${p.object}::JSON::VARCHAR)` },
    { what: 'cast array text ::VARCHAR[]', sql: `select len(${p.array}::VARCHAR[])` },
    { what: 'cast array text ::INTEGER[]', sql: `select len(${p.array}::INTEGER[])` },
    { what: 'cast array text ::INTEGER[][]', sql: `select len(${p.array}::INTEGER[][])` },
    {
      what: 'cast struct text ::STRUCT(a VARCHAR)',
      sql: `select (repeat('{a:', ${n}) || '1' || repeat('}', ${n}))::STRUCT(a VARCHAR)`,
    },
    { what: 'cast array text ::MAP(VARCHAR, VARCHAR)', sql: `select ${p.array}::MAP(VARCHAR, VARCHAR)` },
    { what: 'cast JSON ::VARIANT', sql: `select length(${p.array}::JSON::VARIANT::VARCHAR)` },
    { what: 'cast WKT ::GEOMETRY', sql: `select ${p.wkt}::GEOMETRY is null` },
    { what: `type text INTEGER${'[]'}×${m}`, sql: `select NULL::INTEGER${'[]'.repeat(m)} is null` },
    {
      what: 'json_transform with a deep structure',
      sql: `select json_transform('1', repeat('[', ${n}) || '"INTEGER"' || repeat(']', ${n})) is null`,
    },
    {
      what: 'from_json with a deep structure',
      sql: `select from_json('1', repeat('[', ${n}) || '"INTEGER"' || repeat(']', ${n})) is null`,
    },
    { what: 'parser: 255 nested parentheses', sql: `select ${'('.repeat(255)}1${')'.repeat(255)}` },
    { what: `parser: 1+1+…, ${m} terms`, sql: `select 1${'+1'.repeat(m)}` },
    { what: `parser: unary minus ×${m}`, sql: `select ${'- '.repeat(m)}1` },
    { what: `parser: NOT ×${m / 2}`, sql: `select ${'NOT '.repeat(m / 2)}true` },
    { what: `parser: 'a'||'a'||…, ${m / 2} terms`, sql: `select length('a'${"||'a'".repeat(m / 2)})` },
    {
      what: `parser: CASE chain ${m / 4}`,
      sql: `select ${'case when true then '.repeat(m / 8)}1${' end'.repeat(m / 8)}`,
    },
    { what: `parser: x AND x …, ${m / 2} terms`, sql: `select true${' and true'.repeat(m / 2)}` },
    { what: `parser: UNION ALL ×${m / 4}`, sql: `select 1${' union all select 1'.repeat(m / 4)}` },
  ];
}

async function functionCalls(n: number, only: string): Promise<Call[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const rows = (
    await conn.runAndReadAll(
      `select function_name, function_type, parameter_types from duckdb_functions()
       where function_type in ('scalar', 'aggregate') and not function_name ~ '^[^a-z_]'
       order by function_name, parameter_types::VARCHAR`,
    )
  ).getRows();
  conn.disconnectSync();
  const p = payloads(n);
  const calls: Call[] = [];
  const seen = new Set<string>();
  for (const [name, kind, typesValue] of rows) {
    if (!String(name).startsWith(only)) continue;
    const types = (typesValue as { items: unknown[] }).items.map(String);
    types.forEach((type, i) => {
      for (const [label, deep] of Object.entries(deepFor(type, p))) {
        const argsSql = types.map((t, j) => (j === i ? deep : plain(t)));
        const sql = `select (${String(name)}(${argsSql.join(', ')})) is null`;
        if (seen.has(sql)) continue;
        seen.add(sql);
        calls.push({ what: `${String(kind)} ${String(name)}(${types.join(', ')}) arg ${i + 1} ${label}`, sql });
      }
    });
  }
  return calls;
}

/** The child: run calls from `start` on, announcing each before and after (synchronously, so a crash leaves the start). */
async function child(calls: Call[], start: number): Promise<void> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  for (let i = start; i < calls.length; i++) {
    writeSync(1, `S ${i}\n`);
    let outcome = 'ok';
    try {
      await conn.run(calls[i]!.sql);
    } catch (e) {
      outcome = `error ${String((e as Error).message)
        .split('\n')[0]!
        .slice(0, 120)}`;
    }
    writeSync(1, `D ${i} ${outcome}\n`);
  }
}

interface Finding {
  what: string;
  sql: string;
  outcome: string;
}

async function sweep(calls: Call[], timeoutS: number): Promise<Finding[]> {
  const findings: Finding[] = [];
  let next = 0;
  while (next < calls.length) {
    const started = await new Promise<{
      running: number | null;
      signal: string | null;
      code: number | null;
      slow: boolean;
    }>((resolve) => {
      const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', String(next), ...args], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let running: number | null = null;
      let slow = false;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          slow = true;
          proc.kill('SIGKILL');
        }, timeoutS * 1000);
      };
      createInterface({ input: proc.stdout }).on('line', (line) => {
        const [tag, index, ...rest] = line.split(' ');
        if (tag === 'S') {
          running = Number(index);
          arm();
        } else if (tag === 'D') {
          running = null;
          const outcome = rest.join(' ');
          if (outcome !== 'ok' && !outcome.startsWith('error')) findings.push({ ...calls[Number(index)]!, outcome });
          next = Number(index) + 1;
          if (next % 200 === 0) process.stderr.write(`${next}/${calls.length}\n`);
        }
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ running, signal, code, slow });
      });
    });
    if (started.running === null) break;
    const call = calls[started.running]!;
    const outcome = started.slow
      ? `slow (over ${timeoutS} s, killed)`
      : `crash (${started.signal ?? `exit ${started.code}`})`;
    findings.push({ ...call, outcome });
    process.stderr.write(`${outcome}: ${call.what}\n`);
    next = started.running + 1;
  }
  return findings;
}

const depth = Number(opt('depth', '1000000'));
const only = opt('only', '');
const calls = [...(await functionCalls(depth, only)), ...(only ? [] : castsAndParser(depth))];
if (args.includes('--child')) {
  await child(calls, Number(args[args.indexOf('--child') + 1]));
} else {
  const t0 = Date.now();
  const findings = await sweep(calls, Number(opt('timeout', '8')));
  console.log(
    JSON.stringify(
      { depth, calls: calls.length, seconds: Math.round((Date.now() - t0) / 1000), load: loadavg()[0], findings },
      null,
      1,
    ),
  );
}
