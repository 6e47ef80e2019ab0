/**
 * The columns a prepared statement returns, known before Bind. DuckDB cannot bind some statements
 * until it sees parameter values (a parameter inside a correlated subquery of a catalog macro, such
 * as `attrelid = cast($1 as regclass)`); it then reports one placeholder column `unknown`. PostgreSQL
 * always knows the shape at Parse, and drivers rely on Describe matching what Execute sends, so the
 * shape is taken from the same statement with each parameter replaced by a NULL of its type — or,
 * if even that cannot be bound, the statement fails at Parse with a clear error.
 */
import { DuckDBTypeId, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { replaceParams } from '../text/split.js';
import { LRUCache } from 'lru-cache';
import { counted } from '../stages.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';

export interface ResultShape {
  names: string[];
  /** null: DuckDB types the column only once it runs (described as text until then). */
  types: (DuckDBType | null)[];
  /** The shape came from binding NULLs for the parameters: describe portals from the running result. */
  probed: boolean;
}

const NUMBER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|FLOAT|DOUBLE|DECIMAL(\(\d+,\s*\d+\))?)$/i;

/** DuckDB's stand-in result of a statement it could not bind before parameter values. */
function isPlaceholder(duck: DuckDBPreparedStatement): boolean {
  return (
    duck.parameterCount > 0 &&
    duck.columnCount === 1 &&
    duck.columnName(0) === 'unknown' &&
    duck.columnTypeId(0) === DuckDBTypeId.INVALID
  );
}

/**
 * PostgreSQL's ceiling on result columns (MaxTupleAttributeNumber). A gateway needs it too: DuckDB's
 * C API copies every column's type to report one, so reading n columns costs n² on the event loop
 * (25,000 columns held it for seconds).
 */
export const MAX_RESULT_COLUMNS = 1664;

function shapeOf(duck: DuckDBPreparedStatement, probed: boolean): ResultShape {
  const names: string[] = [];
  const types: (DuckDBType | null)[] = [];
  const count = duck.columnCount;
  if (count > MAX_RESULT_COLUMNS)
    throw new SqlError(SQLSTATE.tooManyColumns, `target lists can have at most ${MAX_RESULT_COLUMNS} entries`);
  for (let i = 0; i < count; i++) {
    names.push(duck.columnName(i));
    types.push(duck.columnTypeId(i) === DuckDBTypeId.INVALID ? null : duck.columnType(i));
  }
  return { names, types, probed };
}

/**
 * Shapes probed, by the scope they were bound in (session/planner.ts checkScope: a frozen version's
 * catalog, the search path, the configuration's generation), the text and its parameters' types: a
 * probe binds over that catalog only, so another session's first plan of the text is not probed again.
 * Only a shape a probe answered is kept (not DuckDB's own columns, which are the prepared statement's).
 */
const probedShapes = new LRUCache<string, ResultShape>({
  max: 4096,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (shape, key) => 2 * key.length + 64 * shape.names.length + 64,
});
trimWhenIdle(lruTrim(probedShapes));

/**
 * `typeOf(n)`: the DuckDB type of parameter n (1-based) as the statement will be bound.
 * `typedAtBind(n)`: parameter n is left untyped and takes its value's own type at Bind (numeric):
 * DuckDB's provisional columns for it are a guess, so the shape comes from the probe.
 * With a `scope`, a shape probed in it before is reused (probedShapes).
 */
export async function resultShape(
  conn: DuckDBConnection,
  duck: DuckDBPreparedStatement,
  sql: string,
  typeOf: (n: number) => string,
  typedAtBind: (n: number) => boolean = () => false,
  scope?: string,
): Promise<ResultShape> {
  const placeholder = isPlaceholder(duck);
  let guessed = false;
  for (let n = 1; n <= duck.parameterCount && !guessed; n++) guessed = typedAtBind(n);
  if (!placeholder && !guessed) return shapeOf(duck, false);
  let key: string | undefined;
  if (scope !== undefined) {
    const params: string[] = [];
    for (let n = 1; n <= duck.parameterCount; n++) params.push(`${typeOf(n)}:${typedAtBind(n) ? 1 : 0}`);
    key = [scope, sql, placeholder ? 1 : 0, params.join(',')].join('\u0000');
    const known = probedShapes.get(key);
    if (known) return { names: [...known.names], types: [...known.types], probed: known.probed };
  }
  const probes = { failed: false, answered: false };
  const shape = await probedShape(conn, duck, sql, typeOf, placeholder, probes);
  if (key !== undefined && probes.answered && !probes.failed)
    probedShapes.set(key, { ...shape, names: [...shape.names], types: [...shape.types] });
  return shape;
}

async function probedShape(
  conn: DuckDBConnection,
  duck: DuckDBPreparedStatement,
  sql: string,
  typeOf: (n: number) => string,
  placeholder: boolean,
  probes: { failed: boolean; answered: boolean },
): Promise<ResultShape> {
  // Typed parameters first, then values of those types (a parameter inside a catalog macro's correlated
  // subquery binds only as a value): zero for numbers, as DuckDB folds `CAST(NULL AS INTEGER)` in
  // `round(amount, NULL)` or `NULL * 2.5` to an INTEGER NULL; NULL for the rest.
  const value = (t: string) => (NUMBER.test(t) ? `CAST(0 AS ${t})` : `CAST(NULL AS ${t})`);
  for (const stand of [(n: number) => `($${n}::${typeOf(n)})`, (n: number) => value(typeOf(n))]) {
    let probe: DuckDBPreparedStatement | null = null;
    try {
      counted('type_probe');
      probe = await conn.prepare(replaceParams(sql, stand));
      if (!isPlaceholder(probe)) {
        const shape = shapeOf(probe, true);
        if (shape.types.every((t) => t !== null)) return ((probes.answered = true), shape);
      }
    } catch {
      // the next stand-in, or the error below
      probes.failed = true;
    } finally {
      probe?.destroySync();
    }
  }
  // DuckDB's own columns, described again from the running result for portals.
  if (!placeholder) return shapeOf(duck, true);
  throw new SqlError(
    SQLSTATE.indeterminateDatatype,
    'could not determine the result columns of this statement before its parameters are bound',
    undefined,
    'Cast the parameters to their types, or inline the values.',
  );
}
