/** PostgreSQL parse-tree nodes built by the rewrite's translations (pg-calls.ts, pg-formatting.ts). */
import { MAX_CONCAT_ARGS } from '../engine/concat-guards.js';

export type Node = Record<string, any>;

export const str = (sval: string): Node => ({ String: { sval } });
export const strConst = (s: string): Node => ({ A_Const: { sval: { sval: s } } });
export const intConst = (n: number): Node => ({ A_Const: { ival: { ival: n } } });
export const call = (name: string, args: Node[]): Node => ({
  FuncCall: { funcname: [str(name)], args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
/** concat(parts…), nested where there are more parts than the engine's concat guard takes (engine/concat-guards.ts). */
export function concatOf(parts: Node[]): Node {
  if (parts.length <= MAX_CONCAT_ARGS) return call('concat', parts);
  const chunks: Node[] = [];
  for (let i = 0; i < parts.length; i += MAX_CONCAT_ARGS)
    chunks.push(call('concat', parts.slice(i, i + MAX_CONCAT_ARGS)));
  return concatOf(chunks);
}
export const coalesce = (args: Node[]): Node => ({ CoalesceExpr: { args } });
export const castTo = (arg: Node, type: string, typmods?: Node[]): Node => ({
  TypeCast: { arg, typeName: { names: [str(type)], typemod: -1, ...(typmods ? { typmods } : {}) } },
});
