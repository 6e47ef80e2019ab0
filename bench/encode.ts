/**
 * Micro-bench of the DataRow encoder: rows/s for a 1M-row chunked DuckDB result of mixed
 * int / varchar / double / timestamp (and timestamptz), text and binary formats. Chunks are
 * fetched first, so only encoding is timed. With `--pg`, also times a private PostgreSQL 15
 * streaming the same rows over the extended protocol to a raw client (server+socket+framing), as
 * a reference point — not a like-for-like comparison.
 *
 *   npx tsc -p . && node dist/bench/encode.js [--rows 1000000] [--pg]
 */
import { DuckDBInstance, type DuckDBDataChunk } from '@duckdb/node-api';
import { Writer } from '../src/wire/writer.js';
import { makeRowEncoder } from '../src/wire/types/index.js';

const args = process.argv.slice(2);
const rows = Number(args[args.indexOf('--rows') + 1] || 0) || 1_000_000;

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const SQL = (n: number) => `SELECT i::INTEGER AS id, 'name_' || i AS name, i * 1.5::DOUBLE AS score,
  TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND + INTERVAL (i % 1000000) MICROSECOND AS ts
  FROM range(${n}) t(i)`;

async function fetchAll(sql: string): Promise<{ chunks: DuckDBDataChunk[]; ms: number; types: any[] }> {
  const t0 = performance.now();
  const r = await conn.run(sql);
  const chunks: DuckDBDataChunk[] = [];
  for (;;) {
    const c = await r.fetchChunk();
    if (!c || c.rowCount === 0) break;
    chunks.push(c);
  }
  return { chunks, ms: performance.now() - t0, types: r.columnTypes() };
}

function bench(label: string, chunks: DuckDBDataChunk[], types: any[], format: 0 | 1, timeZone = 'UTC') {
  const enc = makeRowEncoder(
    types,
    types.map(() => format),
    { timeZone },
  );
  const w = new Writer(256 * 1024);
  let best = Infinity,
    bytes = 0;
  for (let rep = 0; rep < 5; rep++) {
    const t0 = performance.now();
    let n = 0;
    for (const c of chunks) {
      n += enc(c, w);
      if (w.length > 128 * 1024) {
        bytes += w.length;
        w.flush();
      } // as a connection would hand off to the socket
    }
    bytes += w.length;
    w.flush();
    best = Math.min(best, performance.now() - t0);
    if (n !== rows) throw new Error(`encoded ${n} rows`);
  }
  console.log(
    `${label.padEnd(44)} ${(rows / (best / 1000) / 1e6).toFixed(2)} M rows/s  (${best.toFixed(0)} ms, ${(bytes / 5 / rows).toFixed(1)} B/row)`,
  );
}

const { chunks, ms, types } = await fetchAll(SQL(rows));
console.log(
  `DuckDB fetch of ${rows} rows in ${chunks.length} chunks: ${ms.toFixed(0)} ms (${(rows / ms / 1000).toFixed(2)} M rows/s)`,
);
bench('int/varchar/double/timestamp, text', chunks, types, 0);
bench('int/varchar/double/timestamp, binary', chunks, types, 1);

const tz = await fetchAll(`SELECT id, ts::TIMESTAMPTZ AS tstz FROM (${SQL(rows)})`);
bench('int/timestamptz America/New_York, text', tz.chunks, tz.types, 0, 'America/New_York');

const dec = await fetchAll(`SELECT (i / 100)::DECIMAL(12,2) AS d, [i, i + 1] AS l FROM range(${rows}) t(i)`);
bench('decimal(12,2)/int8[] (generic path), text', dec.chunks, dec.types, 0);
bench('decimal(12,2)/int8[] (generic path), binary', dec.chunks, dec.types, 1);

if (args.includes('--pg')) {
  const { startPgCluster } = await import('../test/support/pg-cluster.js');
  const { RawPg } = await import('../test/support/raw-pg.js');
  const pg = await startPgCluster();
  try {
    const c = await RawPg.connect({ port: pg.port });
    const pgSql = `SELECT i::int4 AS id, 'name_' || i AS name, i * 1.5::float8 AS score,
      TIMESTAMP '2024-01-01' + make_interval(secs => i) + make_interval(secs => (i % 1000000) / 1e6) AS ts
      FROM generate_series(0, ${rows - 1}) i`;
    for (const f of [0, 1]) {
      const t0 = performance.now();
      const r = await c.query(pgSql, { resultFormats: [f] });
      const dt = performance.now() - t0;
      console.log(
        `PostgreSQL 15 → RawPg test client (client-bound, NOT a gateway target), ${f ? 'binary' : 'text'}: ${(r.dataRows.length / dt / 1000).toFixed(2)} M rows/s (${dt.toFixed(0)} ms incl. query + socket)`,
      );
    }
    await c.close();
  } finally {
    await pg.stop();
  }
}
