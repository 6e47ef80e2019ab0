/**
 * Parameter typing reads a rewritten text's tree as the rewrite printed it, not PostgreSQL's parse of the
 * printed text (pg/pg-parse.ts parsePrintedPg, pg/rewrite.ts readsParamsAlike): the two must type every
 * parameter alike. Over the corpus with its integers as parameters (every other one, then all), the
 * rewrite's tree and a fresh parse of its text give the same types and the same need of a probe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteParsed } from '../src/pg/rewrite.js';
import { paramContext } from '../src/pg/param-types.js';
import { pgParses } from '../src/pg/pg-parse.js';
import { corpusStatements } from './support/pg-corpus.js';

/** `base` with its integer constants as parameters: the even-numbered ones (0), the odd (1), or all (2). */
function withParams(base: string, mode: 0 | 1 | 2): string {
  let k = 0;
  return base.replace(/(?<![\w$.'])\d+(?![\w.'])/g, (d) => (mode === 2 || k % 2 === mode ? `$${++k}` : (k++, d)));
}

test("the rewrite's printed tree types a rewritten text's parameters as PostgreSQL's parse of that text does", () => {
  let compared = 0;
  let fromPrinted = 0;
  const show = (c: ReturnType<typeof paramContext>) =>
    c && JSON.stringify({ fixed: [...c.fixed].sort((a, b) => a[0] - b[0]), probes: c.probes });
  for (const base of corpusStatements()) {
    for (const mode of [0, 1, 2] as const) {
      const sql = withParams(base, mode);
      if (!sql.includes('$')) continue;
      let rewritten: string;
      try {
        rewritten = rewriteParsed(sql).sql;
      } catch {
        continue; // refused by the rewrite: nothing to type
      }
      if (rewritten === sql) continue;
      const parses = pgParses();
      const printed = show(paramContext(sql, rewritten));
      if (pgParses() === parses) fromPrinted++;
      // another text, the same tree: a line end PostgreSQL's grammar skips, parsed afresh
      const parsed = show(paramContext(sql, `${rewritten}\n`));
      assert.equal(printed, parsed, sql);
      compared++;
    }
  }
  // most rewritten texts are typed from the printed tree (a float check, a function's PostgreSQL meaning)
  assert.ok(compared > 1000 && fromPrinted > compared / 2, `${fromPrinted} of ${compared}`);
});
