/**
 * A set operation's column types where PostgreSQL's resolution differs from DuckDB's and the branches'
 * items say it without a binder: constants and casts (the parse alone knows their types).
 * - An untyped string literal (`select 1 union select '2'`) is `unknown` in PostgreSQL and takes the type
 *   the other branches agree on (integer); DuckDB made the column text. Cast to that type here.
 * - Numeric constants or casts of different scales in one column (`select 1.5 union select 2.25`):
 *   PostgreSQL shows each value at its own scale (`1.5`, `2.25`), DuckDB's one DECIMAL scale padded them
 *   (`1.50`): refused 0A000 with a hint, as the value cannot carry its scale through DuckDB's set operation.
 * Columns and other expressions are not typed here; they leave a position as it is.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { castTo } from './parse-nodes.js';

type Node = Record<string, any>;

/** What the parse alone says of an item's type. */
type Known =
  | { kind: 'unknown' | 'null' | 'other' }
  | { kind: 'int' }
  | { kind: 'numeric'; scale: number | undefined }
  | { kind: 'cast'; type: string };

const NUMERIC_NAMES = new Set(['numeric', 'decimal']);

function known(val: Node | undefined): Known {
  const c = val?.A_Const as Node | undefined;
  if (c) {
    if (c.isnull) return { kind: 'null' };
    if (c.sval) return { kind: 'unknown' };
    if (c.ival) return { kind: 'int' };
    if (c.boolval) return { kind: 'cast', type: 'bool' };
    const f = c.fval?.fval as string | undefined;
    // an integer too wide for int4 is int8 or numeric in PostgreSQL; an exponent form's scale is its value's
    if (f !== undefined)
      return /^[0-9]*\.[0-9]*$/.test(f) ? { kind: 'numeric', scale: f.split('.')[1]!.length } : { kind: 'other' };
    return { kind: 'other' };
  }
  const tc = val?.TypeCast as Node | undefined;
  const names = (tc?.typeName?.names as Node[] | undefined)?.map((n) => String(n?.String?.sval));
  if (!tc || !names || tc.typeName.arrayBounds) return { kind: 'other' };
  const type = names[names.length - 1]!.toLowerCase();
  if (names.length > 1 && names[0] !== 'pg_catalog') return { kind: 'other' };
  if (NUMERIC_NAMES.has(type)) {
    const mods = (tc.typeName.typmods as Node[] | undefined)?.map((m) => m?.A_Const?.ival?.ival as number | undefined);
    // numeric(p) is scale 0 (the ival of 0 is absent in the parse); a bare numeric keeps the value's scale
    return { kind: 'numeric', scale: mods?.length ? (mods[1] ?? 0) : undefined };
  }
  if (tc.typeName.typmods) return { kind: 'other' };
  return { kind: 'cast', type };
}

/** The leaf SELECTs of a set operation (nested operations flattened); undefined if one has no select list. */
function leaves(body: Node, out: Node[] = []): Node[] | undefined {
  if (body.op && body.op !== 'SETOP_NONE') {
    const l = body.larg as Node | undefined;
    const r = body.rarg as Node | undefined;
    if (!l || !r) return undefined;
    return leaves(l, out) && leaves(r, out);
  }
  if (!Array.isArray(body.targetList) || body.withClause) return undefined;
  out.push(body);
  return out;
}

/**
 * The set operation `body` (a SelectStmt with op) with its untyped literals cast to the type the other
 * branches' constants and casts agree on; undefined when nothing changes. Throws 0A000 for numeric
 * constants or casts of different scales in one column.
 */
export function setOperationTypes(body: Node): Node | undefined {
  const all = leaves(body);
  if (!all || all.length < 2) return undefined;
  const width = (all[0]!.targetList as Node[]).length;
  if (all.some((b) => (b.targetList as Node[]).length !== width)) return undefined;
  const castAt = new Map<number, string>();
  for (let i = 0; i < width; i++) {
    const items = all.map((b) => known((b.targetList as Node[])[i]?.ResTarget?.val as Node | undefined));
    const numerics = items.filter((k): k is { kind: 'numeric'; scale: number | undefined } => k.kind === 'numeric');
    if (numerics.length > 0) {
      // a bare ::numeric keeps its value's scale, unknown here
      const scales = new Set(items.map((k) => (k.kind === 'int' ? 0 : k.kind === 'numeric' ? k.scale : undefined)));
      scales.delete(undefined);
      if (scales.size > 1) throw scalesRefused();
    }
    if (!items.some((k) => k.kind === 'unknown')) continue;
    if (items.some((k) => k.kind === 'other')) continue;
    const typed = items.filter((k) => k.kind !== 'unknown' && k.kind !== 'null');
    if (typed.length === 0) continue;
    const kinds = new Set(typed.map((k) => (k.kind === 'cast' ? `cast ${k.type}` : k.kind)));
    // integers with numerics resolve to numeric (PostgreSQL's preferred type of the category)
    const type =
      kinds.size === 1 && kinds.has('int')
        ? 'int4'
        : [...kinds].every((k) => k === 'int' || k === 'numeric')
          ? 'numeric'
          : kinds.size === 1 && typed[0]!.kind === 'cast'
            ? typed[0]!.type
            : undefined;
    if (type) castAt.set(i, type);
    // a literal read as numeric keeps its text's scale (`'2.25'` beside `1.5`)
    if (type === 'numeric') {
      const vals = all.map((b) => (b.targetList as Node[])[i]?.ResTarget?.val?.A_Const?.sval?.sval as unknown);
      const scales = new Set(numerics.map((k) => k.scale).filter((n) => n !== undefined));
      if (items.some((k) => k.kind === 'int')) scales.add(0);
      for (const v of vals) {
        const m = typeof v === 'string' ? /^\s*[-+]?\d*(?:\.(\d*))?\s*$/.exec(v) : null;
        if (m) scales.add(m[1]?.length ?? 0);
      }
      if (scales.size > 1) throw scalesRefused();
    }
  }
  if (castAt.size === 0) return undefined;
  const recast = (b: Node): Node => {
    if (b.op && b.op !== 'SETOP_NONE') return { ...b, larg: recast(b.larg as Node), rarg: recast(b.rarg as Node) };
    return {
      ...b,
      targetList: (b.targetList as Node[]).map((t, i) => {
        const type = castAt.get(i);
        const val = t?.ResTarget?.val as Node | undefined;
        if (!type || known(val).kind !== 'unknown') return t;
        // the column keeps PostgreSQL's name (`?column?`, not the cast's type name)
        return { ResTarget: { ...t.ResTarget, val: castTo(val!, type), name: t.ResTarget.name ?? '?column?' } };
      }),
    };
  };
  return recast(body);
}

function scalesRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'numeric values of different scales in one column of a set operation are not supported by fdl-gateway',
    undefined,
    'PostgreSQL shows each value at its own scale (1.5 beside 2.25); cast the column to one scale in every branch: 1.5::numeric(10,2).',
  );
}
