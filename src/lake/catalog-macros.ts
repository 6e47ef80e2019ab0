/** DuckLake macros (ducklake_macro, _macro_impl, _macro_parameters) as DuckDB macro definitions, overloads joined. */
import { SqlError, SQLSTATE } from '../errors.js';
import type { LakeMacro } from './model.js';
import { lit, num, optStr, qi, str, type Row } from './sql.js';
import { leafType } from './types.js';

export function buildMacros(macroRows: Row[], paramRows: Row[], schemas: Map<number, { name: string }>): LakeMacro[] {
  const params = new Map<string, string[]>();
  for (const p of paramRows) {
    const key = `${num(p.macro_id)}:${num(p.impl_id)}`;
    const type = str(p.parameter_type).toLowerCase();
    const dflt = optStr(p.default_value);
    const dType = str(p.default_value_type).toLowerCase();
    let text = qi(str(p.parameter_name));
    if (type && type !== 'unknown') text += ' ' + leafType(type, `macro parameter ${str(p.parameter_name)}`);
    // 'NULL' with type 'unknown' is how the extension stores "no default".
    if (dflt !== null && !(dflt === 'NULL' && (dType === 'unknown' || dType === ''))) {
      text += ` := ${dType && dType !== 'unknown' ? `CAST(${lit(dflt)} AS ${leafType(dType, 'macro default')})` : dflt}`;
    }
    params.set(key, [...(params.get(key) ?? []), text]);
  }
  const byMacro = new Map<number, LakeMacro>();
  for (const r of macroRows) {
    const schema = schemas.get(num(r.schema_id));
    if (!schema) continue;
    const name = str(r.macro_name);
    if (str(r.dialect || 'duckdb') !== 'duckdb') {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `macro ${qi(schema.name)}.${qi(name)}: SQL dialect "${str(r.dialect)}" is not supported`,
      );
    }
    const args = params.get(`${num(r.macro_id)}:${num(r.impl_id)}`) ?? [];
    const body = str(r.type) === 'table' ? `AS TABLE ${str(r.sql)}` : `AS ${str(r.sql)}`;
    const impl = `(${args.join(', ')}) ${body}`;
    const id = num(r.macro_id);
    const existing = byMacro.get(id);
    if (existing) existing.definition += `, ${impl}`;
    else byMacro.set(id, { schema: schema.name, name, definition: impl });
  }
  return [...byMacro.values()];
}
