/**
 * SET of a PostgreSQL setting the gateway shows but does not use (`work_mem`, `enable_seqscan`,
 * `synchronous_commit` …): kept per session and shown back, with no effect, as PostgreSQL 15's own
 * input rules read the value (a bool's spellings, a number with a unit, an enum's values, the range);
 * one a session cannot set (server-wide, superuser-only) refused with PostgreSQL's SQLSTATE.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { PG_SETTINGS } from '../pg/catalog/pg-data.js';
import { shownSetting, SHOWN_SETTINGS } from '../pg/catalog/setting-display.js';

/** PostgreSQL's row for a setting: name, setting, unit, category, short_desc, context, vartype, min, max, enumvals, boot_val. */
function rowOf(name: string): readonly unknown[] | undefined {
  return PG_SETTINGS.find((r) => String(r[0]).toLowerCase() === name);
}

/** Whether `name` (lowercase) is a PostgreSQL setting the gateway knows from PostgreSQL's catalog. */
export function isPgSetting(name: string): boolean {
  return rowOf(name) !== undefined;
}

const MEMORY_KB: Readonly<Record<string, number>> = { B: 1 / 1024, kB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 };
const TIME_MS: Readonly<Record<string, number>> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const BASE_KB: Readonly<Record<string, number>> = { B: 1 / 1024, kB: 1, '8kB': 8, MB: 1024 };
const BASE_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, min: 60_000 };

/** PostgreSQL's parse_bool: a prefix of true/yes/false/no, `on`, a prefix of `off` of two letters or more, 1, 0. */
function parseBool(l: string): boolean | undefined {
  if (l === '') return undefined;
  if ('true'.startsWith(l) || 'yes'.startsWith(l) || l === 'on' || l === '1') return true;
  if ('false'.startsWith(l) || 'no'.startsWith(l) || (l.length >= 2 && 'off'.startsWith(l)) || l === '0') return false;
  return undefined;
}

/** A setting as SHOW prints it and as pg_settings.setting holds it (a number in the setting's base unit). */
export interface PgSettingValue {
  readonly shown: string;
  readonly setting: string;
}

/** The setting at PostgreSQL's default. */
export function pgSettingDefault(name: string): PgSettingValue {
  const row = rowOf(name)!;
  return { shown: SHOWN_SETTINGS.get(String(row[0])) ?? String(row[1]), setting: String(row[1]) };
}

/** The value after `SET name = value`, or PostgreSQL's refusal. */
export function pgSettingInput(name: string, value: string): PgSettingValue {
  const shown = (text: string): PgSettingValue => ({ shown: text, setting: text });
  const row = rowOf(name)!;
  const [shownName, , unit, , , context, vartype, min, max, enumvals] = row as [
    string,
    unknown,
    string | null,
    unknown,
    unknown,
    string,
    string,
    string | null,
    string | null,
    string | null,
  ];
  if (context === 'superuser' || context === 'superuser-backend')
    throw new SqlError(SQLSTATE.insufficientPrivilege, `permission denied to set parameter "${shownName}"`);
  if (context === 'postmaster')
    throw new SqlError(
      SQLSTATE.cantChangeRuntimeParam,
      `parameter "${shownName}" cannot be changed without restarting the server`,
    );
  if (context === 'internal')
    throw new SqlError(SQLSTATE.cantChangeRuntimeParam, `parameter "${shownName}" cannot be changed`);
  if (context === 'sighup' || context === 'backend')
    throw new SqlError(SQLSTATE.cantChangeRuntimeParam, `parameter "${shownName}" cannot be changed now`);
  const invalid = (hint?: string) =>
    new SqlError(
      SQLSTATE.invalidParameterValue,
      `invalid value for parameter "${shownName}": "${value}"`,
      undefined,
      hint,
    );
  const v = value.trim();
  switch (vartype) {
    case 'bool': {
      const b = parseBool(v.toLowerCase());
      if (b === undefined) throw invalid();
      return shown(b ? 'on' : 'off');
    }
    case 'enum': {
      const options = String(enumvals ?? '{}')
        .replace(/^\{|\}$/g, '')
        .split(',')
        .map((o) => o.replace(/^"|"$/g, ''));
      const match = options.find((o) => o.toLowerCase() === v.toLowerCase());
      if (match === undefined) throw invalid(`Available values: ${options.join(', ')}.`);
      return shown(match);
    }
    case 'integer':
    case 'real': {
      const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]+)?$/.exec(v);
      if (!m) throw invalid();
      let n = Number(m[1]);
      const given = m[2];
      if (given !== undefined) {
        const memory = unit !== null && BASE_KB[unit] !== undefined;
        const time = unit !== null && BASE_MS[unit] !== undefined;
        const factor = memory ? MEMORY_KB[given] : time ? TIME_MS[given] : undefined;
        if (factor === undefined)
          throw invalid(
            memory
              ? 'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".'
              : time
                ? 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".'
                : undefined,
          );
        n = (n * factor) / (memory ? BASE_KB[unit!]! : BASE_MS[unit!]!);
      }
      if (vartype === 'integer') {
        if (!Number.isInteger(n) && given === undefined) throw invalid();
        n = Math.round(n);
      }
      if ((min !== null && n < Number(min)) || (max !== null && n > Number(max)))
        throw new SqlError(
          SQLSTATE.invalidParameterValue,
          `${n} is outside the valid range for parameter "${shownName}" (${min} .. ${max})`,
        );
      return { shown: shownSetting(String(n), unit), setting: String(n) };
    }
    default:
      return shown(value);
  }
}
