import { rewriteForDuckDBDetailed as rw } from './dist/src/pg/rewrite.js';
for (const q of process.argv.slice(2)) { const r = rw(q); console.log(r.sql); }
