/**
 * PostgreSQL's bit strings (`B'101'`, `X'FF'`, bit(n), varbit): DuckDB has no such literals (`B'101'`
 * was the text `b101`) and its BIT type prints and converts differently (`255::bit(8)` was 32 bits,
 * `::varbit` 42704). A bit-string constant cast to an integer is computed here as PostgreSQL's bittoint4
 * and bittoint8 do (`X'FF'::int` is 255; wider than the integer 22003); anything else is refused 0A000.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { refuse } from './pg-calls.js';
import { castTo } from './parse-nodes.js';

type Node = Record<string, any>;

const INTEGER_BITS: Readonly<Record<string, [type: string, bits: number]>> = {
  int4: ['int4', 32],
  int: ['int4', 32],
  integer: ['int4', 32],
  int8: ['int8', 64],
  bigint: ['int8', 64],
};
const BIT_TYPES = new Set(['bit', 'varbit']);

function refused(): SqlError {
  return refuse(
    "bit strings (B'101', X'FF', bit(n), varbit)",
    "Use integers with the bitwise operators & | # << >> (X'FF'::int and B'101'::int are supported); bit_count(x) counts the set bits.",
  );
}

/** A bit-string constant's bits ("101"), from the parse's `b101` / `xff`. */
function bitsOf(bsval: string): string {
  const body = bsval.slice(1);
  if (bsval[0] === 'b' || bsval[0] === 'B') return body;
  return [...body].map((h) => parseInt(h, 16).toString(2).padStart(4, '0')).join('');
}

/** `X'…'::int` and relatives computed, a cast to bit/varbit refused; undefined for any other cast. */
export function bitStringCast(tc: Node): Node | undefined {
  const names = (tc.typeName?.names as Node[] | undefined)?.map((n) => String(n?.String?.sval).toLowerCase()) ?? [];
  const type = names[names.length - 1] ?? '';
  const bsval = tc.arg?.A_Const?.bsval?.bsval as string | undefined;
  if (BIT_TYPES.has(type)) throw refused();
  if (bsval === undefined) return undefined;
  const target = INTEGER_BITS[type];
  if (!target || tc.typeName.arrayBounds) throw refused();
  const bits = bitsOf(bsval);
  if (bits.length > target[1])
    throw new SqlError(
      SQLSTATE.numericValueOutOfRange,
      target[1] === 32 ? 'integer out of range' : 'bigint out of range',
    );
  // the bits as the integer's two's complement (X'FFFFFFFF'::int is -1)
  const value = BigInt.asIntN(target[1], BigInt(`0b0${bits}`));
  return castTo({ A_Const: { sval: { sval: value.toString() } } }, target[0]);
}

/** A bit-string constant anywhere else (`B'101'`, `X'FF' = …`): refused. */
export function bitStringConstant(c: Node): never | undefined {
  if (c.bsval !== undefined) throw refused();
  return undefined;
}
