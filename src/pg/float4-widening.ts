/**
 * float4 beside another number: PostgreSQL picks its float8 operators (float48pl, float48eq, …; an integer or
 * a numeric is cast to float8), so `1 / 3::real` is double precision `0.3333333333333333` and `0.1::real = 0.1`
 * false; DuckDB keeps FLOAT (`0.33333334`, true). Where a side is written as float4 (`x::real`, `real '1.5'`)
 * and the other is not, that side is widened to DOUBLE, exactly as float4→float8 is: by its syntax when the
 * other side is written as a number, by DuckDB's binder (`_pgsem_f4wide`, pg-macros.ts) when it is an
 * expression whose type the text does not say (a float4 column beside it keeps float4, as PostgreSQL's).
 * A float4 column beside an integer, with no float4 written, keeps DuckDB's FLOAT (docs/compatibility.md).
 */
import { castTo } from './pg-forms.js';
import { dispatch } from './pg-result-types.js';
import { names, type Node } from './rewrite-nodes.js';

/** The operators PostgreSQL resolves to a float8 (or float48) operator beside a float4. */
const WIDENING_OPS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '=', '<>', '!=', '<', '>', '<=', '>=']);
const OTHER_NUMBERS: ReadonlySet<string> = new Set(['int2', 'int4', 'int8', 'numeric', 'float8']);

function castType(n: Node | undefined): string | undefined {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return tn && !tn.arrayBounds?.length ? names(tn.names).slice(-1)[0] : undefined;
}

const writtenAsFloat4 = (n: Node | undefined): boolean => castType(n) === 'float4';

/** A numeric constant (`3`, `1.5`, `-2`) or a cast to another number type. */
function writtenAsOtherNumber(n: Node | undefined): boolean {
  const c = n?.A_Const as Node | undefined;
  if (c) return c.ival !== undefined || c.fval !== undefined;
  return OTHER_NUMBERS.has(castType(n) ?? '');
}

/** A side whose type the text cannot say and PostgreSQL would not read as float4 (a string literal or NULL it would). */
const untypedConstant = (n: Node | undefined): boolean => !!n?.A_Const && !writtenAsOtherNumber(n);

/**
 * The walked sides, the float4 one widened; undefined when neither side is written as float4, or both are.
 * `orig*` are the client's sides (their syntax), `l`/`r` the walked ones.
 */
export function float4Widened(op: string, origL: Node, origR: Node, l: Node, r: Node): [Node, Node] | undefined {
  if (!WIDENING_OPS.has(op)) return undefined;
  const [f4L, f4R] = [writtenAsFloat4(origL), writtenAsFloat4(origR)];
  if (f4L === f4R) return undefined;
  const [float4, other, walkedOther] = f4L ? [l, origR, r] : [r, origL, l];
  if (untypedConstant(other)) return undefined;
  const wide = writtenAsOtherNumber(other) ? castTo(float4, 'float8') : dispatch('f4wide', [walkedOther], [float4]);
  if (!wide) return undefined;
  return f4L ? [wide, r] : [l, wide];
}
