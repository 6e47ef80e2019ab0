/** PostgreSQL parse-tree nodes built by the rewrite's translations (pg-calls.ts, pg-formatting.ts). */
export type Node = Record<string, any>;

export const str = (sval: string): Node => ({ String: { sval } });
export const strConst = (s: string): Node => ({ A_Const: { sval: { sval: s } } });
export const intConst = (n: number): Node => ({ A_Const: { ival: { ival: n } } });
export const call = (name: string, args: Node[]): Node => ({
  FuncCall: { funcname: [str(name)], args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
export const coalesce = (args: Node[]): Node => ({ CoalesceExpr: { args } });
export const castTo = (arg: Node, type: string, typmods?: Node[]): Node => ({
  TypeCast: { arg, typeName: { names: [str(type)], typemod: -1, ...(typmods ? { typmods } : {}) } },
});
