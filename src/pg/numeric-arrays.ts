/**
 * `ARRAY[1, 2.5]` of numeric constants: PostgreSQL's numeric keeps each element's own scale (`{1,2.5}`),
 * DuckDB's list has one DECIMAL type and pads every element to its scale (`{1.0,2.5}`). The scales are
 * read from the constants' text: as an item of the outermost select list each element is sent as a
 * numeric struct at its scale (pg/shown-numeric.ts: the wire writes numeric[] element by element); cast
 * to text the array's text is written here, from the same digits.
 */
import { exactDecimal } from './numeric-literal.js';
import { compat, str, type Node } from './rewrite-nodes.js';

/** A leaf's numeric text and scale; null for a NULL element. */
type Leaf = { text: string; scale: number } | null;
type Shape = Leaf | Shape[];

/** The elements of an array of numeric constants (nested arrays too), or undefined when any element is something else. */
function shapeOf(n: Node | undefined): Shape | undefined {
  const elements = n?.A_ArrayExpr?.elements as Node[] | undefined;
  if (elements) {
    const out = elements.map(shapeOf);
    return out.some((e) => e === undefined) ? undefined : (out as Shape[]);
  }
  const c = n?.A_Const as Node | undefined;
  if (!c) return undefined;
  if (c.isnull) return null;
  if (c.ival) return { text: String(c.ival.ival ?? 0), scale: 0 };
  const exact = c.fval ? exactDecimal(String(c.fval.fval)) : undefined;
  return exact && Number.isFinite(exact.scale) ? { text: exact.plain, scale: exact.scale } : undefined;
}

const leaves = (s: Shape): Leaf[] => (Array.isArray(s) ? s.flatMap(leaves) : [s]);

/** The shape of `n` when it is an array of numeric constants whose elements do not all have one scale. */
function mixedScales(n: Node | undefined): Shape[] | undefined {
  const shape = shapeOf(n);
  if (!Array.isArray(shape)) return undefined;
  const scales = new Set(leaves(shape).flatMap((l) => (l ? [l.scale] : [])));
  return scales.size > 1 ? shape : undefined;
}

/** array_out of the constants: `{1,2.5}`, `{{1,NULL},{2.50,3}}`. */
const arrayText = (s: Shape): string =>
  Array.isArray(s) ? `{${s.map(arrayText).join(',')}}` : s === null ? 'NULL' : s.text;

/** `ARRAY[…]::text` of numeric constants of mixed scales (`orig` as written): its text; else undefined. */
export function numericArrayText(orig: Node | undefined): Node | undefined {
  const shape = mixedScales(orig);
  return shape && { A_Const: { sval: { sval: arrayText(shape) } } };
}

/** array_to_json of the constants: `[1.5,2]`, `[[1,null],[2.50,3]]` (json's array text has no spaces). */
const arrayJson = (s: Shape): string =>
  Array.isArray(s) ? `[${s.map(arrayJson).join(',')}]` : s === null ? 'null' : s.text;

/**
 * `to_json(ARRAY[…])`, an ARRAY[…] value of json_build_object/json_build_array, of numeric constants of mixed
 * scales (`orig` as written): its json, each element at its own scale (DuckDB's list wrote `[1.5,2.0]`); else undefined.
 */
export function numericArrayJson(orig: Node | undefined): Node | undefined {
  const shape = mixedScales(orig);
  return (
    shape && {
      TypeCast: {
        arg: { A_Const: { sval: { sval: arrayJson(shape) } } },
        typeName: { names: [str('json')], typemod: -1 },
      },
    }
  );
}

/**
 * `ARRAY[…]` of numeric constants of mixed scales as an outermost select-list item (`orig` as written,
 * `walked` its rewrite): each element a numeric struct at its own scale; else undefined. `cast`: it stands
 * under `::numeric[]`, which DuckDB pads to one scale even where the constants share theirs (`{1.000,2.000}`).
 */
export function shownNumericArray(orig: Node, walked: Node, cast = false): Node | undefined {
  const all = cast ? shapeOf({ A_ArrayExpr: orig }) : undefined;
  // (an array of NULLs only keeps its cast: without it the list would not be numeric)
  const shape = Array.isArray(all) && leaves(all).some((l) => l) ? all : mixedScales({ A_ArrayExpr: orig });
  if (!shape) return undefined;
  const wrap = (s: Shape, n: Node): Node | undefined => {
    if (Array.isArray(s)) {
      const elements = n.A_ArrayExpr?.elements as Node[] | undefined;
      const out = elements?.length === s.length ? s.map((e, i) => wrap(e, elements[i]!)) : undefined;
      return out?.every((e) => e !== undefined) ? { A_ArrayExpr: { ...n.A_ArrayExpr, elements: out } } : undefined;
    }
    return s === null ? n : compat('_pgsem_shown_const', [n, { A_Const: { ival: s.scale ? { ival: s.scale } : {} } }]);
  };
  return wrap(shape, { A_ArrayExpr: walked });
}
