import pg from 'pg';
const c = new pg.Client({ host: '127.0.0.1', port: +process.argv[2], user: 'x', database: process.argv[3] ?? 'demo' });
await c.connect();
for (const sql of (process.argv[4] ?? 'SELECT 1|SELECT count(*) FROM sales.orders|SELECT 1').split('|')) {
  if (sql.startsWith('SET')) { await c.query(sql); continue; }
  for (let i = 0; i < 100; i++) await c.query(sql);
  const ts = [];
  for (let i = 0; i < 3000; i++) { const t0 = performance.now(); await c.query(sql); ts.push(performance.now() - t0); }
  ts.sort((a, b) => a - b);
  console.log(sql.padEnd(40), 'p50', ts[1500].toFixed(3), 'p99', ts[2970].toFixed(3));
}
await c.end();
