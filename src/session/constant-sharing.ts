/**
 * Texts that differ only in constants PostgreSQL compares with a column (pg/constant-shapes.ts) run
 * one plan of their shape (issue 24): the shape — the text with those constants as `$1`, `$2`… — is
 * planned once as any statement with undeclared parameters is (rewrite, analysis, admission, the
 * engine line, DuckDB's prepare, PostgreSQL's parameter types), and each text runs that DuckDB
 * statement with its own constants bound as text-format values of those types, decoded as Bind's are
 * (wire/types/params.ts: PostgreSQL's input functions, so `oid = 'abc'` is 22P02 as PostgreSQL's).
 * What DuckDB runs is exactly the text admission judged, the constants bound values.
 *
 * Only where the parameter stands for the constant provably: PostgreSQL resolves an unknown-typed
 * `'…'` beside a column as it resolves a parameter there, and the types whose text input the gateway
 * decodes as PostgreSQL's do, with DuckDB's parameter of the same type (no cast DuckDB would add or
 * rebind for): text, varchar and name as they are; int2, int4, int8 and oid read as PostgreSQL reads
 * them. An integer constant (int4 to PostgreSQL) only beside an int2, int4, int8 or oid column, where
 * PostgreSQL's comparison takes its value as it is. Anything else — another type, a plan that needs
 * its values written in (value-plans.ts), one over remote files, pinned versions or system views —
 * and the text is planned as itself.
 *
 * The text gets a plan of its own (its text in the audit line and errors, its own result-cache key,
 * no parameters of its own to describe) holding a reference to the shape's (plan.ts `sharedFrom`).
 */
import { DuckDBTypeId } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import type { ConstantShape } from '../pg/constant-shapes.js';
import { OID } from '../pg/oids.js';
import type { Statement } from '../text/classify.js';
import type { PreparedStmt } from './plan.js';
import { textChecksAgree } from './comment-sharing.js';

/** The DuckDB type a text-format value of each type is decoded to (wire/types/params.ts), by OID. */
const DECODED: ReadonlyMap<number, DuckDBTypeId> = new Map([
  [OID.text, DuckDBTypeId.VARCHAR],
  [OID.varchar, DuckDBTypeId.VARCHAR],
  [OID.name, DuckDBTypeId.VARCHAR],
  [OID.int2, DuckDBTypeId.SMALLINT],
  [OID.int4, DuckDBTypeId.INTEGER],
  [OID.int8, DuckDBTypeId.BIGINT],
  [OID.oid, DuckDBTypeId.UINTEGER],
]);
/** Beside these a PostgreSQL int4 constant compares by its value (int4, int48, oid's implicit cast). */
const INTEGER_SIDES: ReadonlySet<number> = new Set([OID.int2, OID.int4, OID.int8, OID.oid]);
/** Beside an int2 PostgreSQL compares an int4 constant as it is (int24eq…): one past int2's range is planned as itself. */
const INT2_MAX = 32_767;

/**
 * Shapes whose plan took, or did not take (or did not plan), their texts' constants, process-wide: a
 * text of a shape that did not is planned as itself at once. A shape is met from its lexed form's
 * second text on (pg/constant-shapes.ts), so a text met alone is planned as itself as before. Only a
 * cost is remembered, never an answer.
 */
const shapes = new LRUCache<string, boolean>({
  max: 4000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_, k) => 2 * k.length + 32,
});
trimWhenIdle(lruTrim(shapes));

/** The shape's plan took (or did not take) its texts' constants. */
export function markShape(sql: string, shared: boolean): void {
  if (shapes.get(sql) !== shared) shapes.set(sql, shared);
}

/** Whether the shape's texts are planned as themselves. */
export function isUnshared(sql: string): boolean {
  return shapes.get(sql) === false;
}

/** Whether `planned`, the plan of `shape`, takes the shape's constants as its parameters. */
export function takesConstants(planned: PreparedStmt, shape: ConstantShape): boolean {
  if (planned.stmt.kind !== 'query' || planned.duck === null || planned.sharedFrom) return false;
  if (planned.valuesNeeded || planned.fetchOnBind || planned.holds?.length || planned.leases.length > 0) return false;
  if (planned.systemViews || planned.analysis?.kind !== 'query' || planned.constants) return false;
  if (planned.paramOids.length !== shape.constants.length || planned.duck.parameterCount !== shape.constants.length)
    return false;
  for (const [i, c] of shape.constants.entries()) {
    const oid = planned.paramOids[i]!;
    const decoded = DECODED.get(oid);
    if (decoded === undefined || (c.kind === 'integer' && !INTEGER_SIDES.has(oid))) return false;
    // DuckDB's own parameter of that very type: nothing cast or bound again per value
    let own: DuckDBTypeId | undefined;
    try {
      own = planned.duck.parameterTypeId(i + 1);
    } catch {
      own = undefined;
    }
    if (own !== decoded) return false;
  }
  return true;
}

/** Whether `text` reads as its shape's text everywhere planning reads a text's own characters. */
export function readsAsShape(planned: PreparedStmt, text: string, stmt: Statement, shape: ConstantShape): boolean {
  if (stmt.kind !== 'query') return false;
  const past = (c: ConstantShape['constants'][number], i: number) =>
    c.kind === 'integer' && planned.paramOids[i] === OID.int2 && Number(c.text) > INT2_MAX;
  if (shape.constants.some(past)) return false;
  return textChecksAgree(planned, text);
}

/**
 * `text`'s plan running `planned`'s DuckDB statement with `shape`'s constants: it takes over the
 * caller's reference to `planned`, and the caller owns the new plan's one.
 */
export function constantPlan(planned: PreparedStmt, text: string, stmt: Statement, shape: ConstantShape): PreparedStmt {
  return {
    ...planned,
    refs: 1,
    sql: text,
    stmt,
    declaredTypes: [],
    // the text has no parameters of its own
    paramOids: [],
    constants: { texts: shape.constants.map((c) => c.text), oids: [...planned.paramOids] },
    sharedFrom: planned,
    // its rows are its own text's
    cacheableSql: planned.cacheableSql === null ? null : text,
    // held by `planned`, released with it
    leases: [],
    holds: [],
    repeatable: undefined,
    lastResultKey: undefined,
    sqlHash: undefined,
  };
}
