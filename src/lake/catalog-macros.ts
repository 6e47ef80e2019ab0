/** DuckLake macros (ducklake_macro, _macro_impl, _macro_parameters) as DuckDB macro definitions, overloads joined. */
import { SqlError, SQLSTATE } from '../errors.js';
import type { LakeMacro } from './model.js';
import { lit, num, optStr, qi, str, type Row } from './sql.js';
import { leafType } from './types.js';
import { degraded } from '../degraded.js';

/**
 * A default the extension stores untyped is pasted into CREATE MACRO, and DuckDB computes it there, once,
 * where nothing interrupts it (an attacker review's `levenshtein(repeat('a', 1000000), …)` held a thread for
 * hours): only a literal is taken — a number, a quoted string, NULL, TRUE or FALSE.
 */
const LITERAL_DEFAULT = /^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|'(?:[^']|'')*'|null|true|false)$/i;

export function buildMacros(macroRows: Row[], paramRows: Row[], schemas: Map<number, { name: string }>): LakeMacro[] {
  const params = new Map<string, string[]>();
  /** Implementations with a default that is not a literal: their macro is left out. */
  const refused = new Set<number>();
  for (const p of paramRows) {
    const key = `${num(p.macro_id)}:${num(p.impl_id)}`;
    const type = str(p.parameter_type).toLowerCase();
    const dflt = optStr(p.default_value);
    const dType = str(p.default_value_type).toLowerCase();
    let text = qi(str(p.parameter_name));
    if (type && type !== 'unknown') text += ' ' + leafType(type, `macro parameter ${str(p.parameter_name)}`);
    // 'NULL' with type 'unknown' is how the extension stores "no default".
    if (dflt !== null && !(dflt === 'NULL' && (dType === 'unknown' || dType === ''))) {
      const typed = dType && dType !== 'unknown';
      if (!typed && !LITERAL_DEFAULT.test(dflt.trim())) refused.add(num(p.macro_id));
      text += ` := ${typed ? `CAST(${lit(dflt)} AS ${leafType(dType, 'macro default')})` : dflt}`;
    }
    params.set(key, [...(params.get(key) ?? []), text]);
  }
  const byMacro = new Map<number, LakeMacro>();
  for (const r of macroRows) {
    const schema = schemas.get(num(r.schema_id));
    if (!schema) continue;
    const name = str(r.macro_name);
    if (refused.has(num(r.macro_id))) {
      degraded('view_dropped', `macro ${schema.name}.${name} left out: a parameter's default is not a literal`);
      continue;
    }
    if (str(r.dialect || 'duckdb') !== 'duckdb') {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `macro ${qi(schema.name)}.${qi(name)}: SQL dialect "${str(r.dialect)}" is not supported`,
      );
    }
    const args = params.get(`${num(r.macro_id)}:${num(r.impl_id)}`) ?? [];
    const body = str(r.type) === 'table' ? `AS TABLE ${str(r.sql)}` : `AS ${str(r.sql)}`;
    const impl = `(${args.join(', ')}) ${body}`;
    const query = str(r.type) === 'table' ? str(r.sql) : `SELECT ${str(r.sql)}`;
    const id = num(r.macro_id);
    const existing = byMacro.get(id);
    if (existing) {
      existing.definition += `, ${impl}`;
      existing.bodies.push(query);
    } else byMacro.set(id, { schema: schema.name, name, definition: impl, bodies: [query] });
  }
  return [...byMacro.values()];
}
