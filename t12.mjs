import { DuckDBInstance } from '@duckdb/node-api';
const i = await DuckDBInstance.create(':memory:');
const c = await i.connect();
for (const q of process.argv.slice(2)) {
  try { const r = await c.runAndReadAll(q); console.log(JSON.stringify(r.getRows().map(r=>r.map(String)))); } catch (e) { console.log('ERR', e.message); }
}
