/**
 * `SELECT set_config(name, value, is_local)`: PostgreSQL applies the setting as SET (or SET LOCAL)
 * would and answers the new value. The gateway applies it only where it can do so exactly: a
 * FROM-less SELECT whose select list is nothing but set_config calls with constant arguments (what
 * pg_dump and psql scripts send). PostgreSQL's grammar decides that shape; any other call is refused
 * at run time by the catalog macro (catalog/scalar-macros.ts), never answered without applying.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { parsePg } from './pg-parse.js';

export interface SetConfigCall {
  /** The parameter as SET names it (lower case: PostgreSQL's lookup ignores case). */
  name: string;
  /** null: the reset value (set_config with a NULL value). */
  value: string | null;
  local: boolean;
  /** The result column's name: the alias, else `set_config`. */
  column: string;
}

/** An argument given as a constant's text, or as the text of bound parameter `$param`. */
export type SettingArg = string | { param: number };

/**
 * One item of the select list: a set_config call (its name and value possibly parameters), or a
 * `current_setting('name')` read where it stands — PostgreSQL evaluates the list in order, so asyncpg's
 * `SELECT current_setting('jit') AS cur, set_config('jit', 'off', false) AS new` reads the old value first.
 */
export type SettingItem =
  | { kind: 'set'; name: SettingArg; value: SettingArg | null; local: boolean; column: string }
  | { kind: 'read'; name: string; column: string };

/** The hint of every refusal of set_config: what works instead. */
export const SET_CONFIG_HINT =
  "Run it as a statement of its own, SELECT set_config('name', 'value', false) with constant arguments, or use SET name = value.";

/**
 * A select list of only set_config calls (constants or parameters as name and value) and
 * current_setting reads, with at least one call, in order; null for any other statement.
 */
export function setConfigCalls(sql: string): SettingItem[] | null {
  if (!/set_config/i.test(sql)) return null;
  const stmts = parsePg(sql)?.stmts;
  if (stmts?.length !== 1) return null;
  const select = stmts[0]!.stmt?.SelectStmt as Record<string, any> | undefined;
  if (!select || select.op !== 'SETOP_NONE' || select.limitOption !== 'LIMIT_OPTION_DEFAULT') return null;
  const settingsRow = select.fromClause ? pgSettingsRow(select) : undefined;
  if (settingsRow === null) return null;
  const clauses = settingsRow ? ['fromClause', 'whereClause'] : [];
  if (Object.keys(select).some((k) => !['targetList', 'limitOption', 'op', ...clauses].includes(k))) return null;
  const items: SettingItem[] = [];
  for (const target of (select.targetList as Array<{ ResTarget?: Record<string, any> }> | undefined) ?? []) {
    const call = target.ResTarget?.val?.FuncCall as Record<string, any> | undefined;
    const alias = target.ResTarget?.name as string | undefined;
    if (call && isCall(call, 'current_setting', 1)) {
      const name = constant(call.args[0]);
      if (typeof name !== 'string') return null;
      items.push({ kind: 'read', name: name.toLowerCase(), column: alias ?? 'current_setting' });
      continue;
    }
    if (!call || !isCall(call, 'set_config', 3)) return null;
    const [name, value, local] = (call.args as unknown[]).map((a, i) =>
      i === 0 && settingsRow && isColumn(a, 'name') ? settingsRow : i < 2 ? argument(a) : constant(a),
    );
    if (name === undefined || name === null || typeof name === 'boolean') return null;
    if (
      value === undefined ||
      typeof value === 'boolean' ||
      local === undefined ||
      (typeof local === 'object' && local !== null)
    )
      return null;
    const isLocal = local === null ? false : boolInput(local);
    if (isLocal === undefined) return null;
    items.push({
      kind: 'set',
      name: typeof name === 'string' ? name.toLowerCase() : name,
      value,
      local: isLocal,
      column: alias ?? 'set_config',
    });
  }
  return items.some((i) => i.kind === 'set') ? items : null;
}

/** How many parameters the items take: the highest `$n` named. */
export function settingParamCount(items: readonly SettingItem[]): number {
  const n = (a: SettingArg | null) => (a !== null && typeof a === 'object' ? a.param : 0);
  return Math.max(0, ...items.map((i) => (i.kind === 'set' ? Math.max(n(i.name), n(i.value)) : 0)));
}

/** A set_config item with its parameters' texts in place (null: a NULL parameter). */
export function boundSetConfig(
  item: Extract<SettingItem, { kind: 'set' }>,
  params: readonly (string | null)[],
): SetConfigCall {
  const text = (a: SettingArg): string | null => {
    if (typeof a === 'string') return a;
    if (a.param > params.length) throw new SqlError(SQLSTATE.undefinedParameter, `there is no parameter $${a.param}`);
    return params[a.param - 1] ?? null;
  };
  const name = text(item.name);
  if (name === null) throw new SqlError(SQLSTATE.nullValueNotAllowed, 'SET requires parameter name');
  return {
    name: name.toLowerCase(),
    value: item.value === null ? null : text(item.value),
    local: item.local,
    column: item.column,
  };
}

/**
 * pg_dump's form (15.8+): `SELECT set_config(name, 'v', false) FROM pg_settings WHERE name = 'x'`
 * sets x where the server has it. The named parameter, undefined without a FROM, null for any other FROM.
 */
function pgSettingsRow(select: Record<string, any>): string | null {
  const from = select.fromClause as Array<Record<string, any>>;
  const rel = from.length === 1 ? from[0]!.RangeVar : undefined;
  if (!rel || rel.relname !== 'pg_settings' || rel.alias || ![undefined, 'pg_catalog'].includes(rel.schemaname))
    return null;
  const where = select.whereClause?.A_Expr as Record<string, any> | undefined;
  const op = (where?.name as Array<{ String?: { sval?: string } }> | undefined)?.map((n) => n.String?.sval).join();
  const value = where?.rexpr?.A_Const?.sval?.sval as string | undefined;
  if (where?.kind !== 'AEXPR_OP' || op !== '=' || !isColumn(where.lexpr, 'name') || value === undefined) return null;
  return value;
}

function isColumn(node: unknown, name: string): boolean {
  const fields = (node as { ColumnRef?: { fields?: Array<{ String?: { sval?: string } }> } }).ColumnRef?.fields;
  return fields?.length === 1 && fields[0]!.String?.sval === name;
}

/** A plain call of `fn` (or `pg_catalog.fn`) with `arity` arguments. */
function isCall(call: Record<string, any>, fn: string, arity: number): boolean {
  const names = (call.funcname as Array<{ String?: { sval?: string } }>).map((n) => n.String?.sval);
  const plain =
    Object.keys(call).every((k) => ['funcname', 'args', 'funcformat', 'location'].includes(k)) &&
    (call.args as unknown[] | undefined)?.length === arity;
  return (
    plain && ((names.length === 1 && names[0] === fn) || (names.length === 2 && names.join('.') === `pg_catalog.${fn}`))
  );
}

/** A name or value argument: a constant (as `constant`), or a bare parameter `$n`. */
function argument(node: unknown): SettingArg | boolean | null | undefined {
  const ref = (node as { ParamRef?: { number?: number } }).ParamRef;
  if (ref && typeof ref.number === 'number' && ref.number > 0) return { param: ref.number };
  return constant(node);
}

/** A constant argument: its text (strings), true/false (booleans), null (NULL); undefined for anything else. */
function constant(node: unknown): string | boolean | null | undefined {
  const c = (node as { A_Const?: Record<string, any> }).A_Const;
  if (!c) return undefined;
  if (c.isnull) return null;
  if (c.sval) return (c.sval.sval as string | undefined) ?? '';
  if (c.boolval) return c.boolval.boolval === true;
  return undefined;
}

/** A boolean argument, read as PostgreSQL's boolean input (parse_bool) reads a string constant; undefined when invalid. */
function boolInput(v: string | boolean): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const t = v.trim().toLowerCase();
  const prefixOf = (word: string, min: number) => t.length >= min && word.startsWith(t);
  if (prefixOf('true', 1) || prefixOf('yes', 1) || prefixOf('on', 2) || t === '1') return true;
  if (prefixOf('false', 1) || prefixOf('no', 1) || prefixOf('off', 2) || t === '0') return false;
  return undefined;
}
