/**
 * PostgreSQL session parameters as the gateway keeps them: defaults, which ones are reported to
 * the client with ParameterStatus, and validation of the values the gateway interprets itself.
 */
import { SqlError, SQLSTATE } from '../errors.js';

export const SERVER_VERSION = '15.0';

/** Parameters PostgreSQL reports (GUC_REPORT): a change sends ParameterStatus. */
const REPORTED: Record<string, string> = {
  application_name: 'application_name',
  client_encoding: 'client_encoding',
  datestyle: 'DateStyle',
  intervalstyle: 'IntervalStyle',
  timezone: 'TimeZone',
  integer_datetimes: 'integer_datetimes',
  standard_conforming_strings: 'standard_conforming_strings',
  server_version: 'server_version',
  server_encoding: 'server_encoding',
  is_superuser: 'is_superuser',
  session_authorization: 'session_authorization',
  default_transaction_read_only: 'default_transaction_read_only',
  in_hot_standby: 'in_hot_standby',
};

/** Settings every session starts with (lowercase names, PostgreSQL spelling of values). */
export function defaultSettings(user: string): Map<string, string> {
  return new Map<string, string>([
    ['server_version', SERVER_VERSION],
    ['server_version_num', '150000'],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['datestyle', 'ISO, MDY'],
    ['intervalstyle', 'postgres'],
    ['timezone', 'UTC'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['application_name', ''],
    ['is_superuser', 'off'],
    ['session_authorization', user],
    ['default_transaction_read_only', 'on'],
    ['transaction_read_only', 'on'],
    ['in_hot_standby', 'off'],
    ['extra_float_digits', '1'],
    ['search_path', '"$user", public'],
    ['statement_timeout', '0'],
    ['idle_in_transaction_session_timeout', '0'],
    ['lock_timeout', '0'],
    ['transaction_isolation', 'read committed'],
    ['default_transaction_isolation', 'read committed'],
    ['client_min_messages', 'notice'],
    ['bytea_output', 'hex'],
    ['max_identifier_length', '63'],
    ['lc_messages', 'C'],
    ['lc_monetary', 'C'],
    ['lc_numeric', 'C'],
    ['lc_time', 'C'],
    ['lc_collate', 'C'],
    ['lc_ctype', 'C'],
    ['max_index_keys', '32'],
    ['block_size', '8192'],
    ['jit', 'off'],
    // pg_dump sets these first; a read-only gateway with no row security has nothing they change.
    ['synchronize_seqscans', 'on'],
    ['row_security', 'on'],
    ['quote_all_identifiers', 'off'],
    // pg_dump 15.8+ sets it (SELECT set_config(name, …) FROM pg_settings): accepted and shown, not
    // enforced (docs/compatibility.md, pg_dump).
    ['restrict_nonsystem_relation_kind', ''],
    // fdl-gateway's own: answer repeatable queries from the result cache (off: always run them).
    ['fdl.result_cache', 'on'],
  ]);
}

export function reportedName(name: string): string | undefined {
  return REPORTED[name];
}

export const INITIAL_REPORTED = Object.keys(REPORTED);

/** Normalise a value the gateway interprets; throw 22023 for values PostgreSQL would refuse. */
export function normalizeSetting(name: string, value: string): string {
  switch (name) {
    case 'client_encoding': {
      const v = value.replace(/['"]/g, '').toUpperCase().replace(/-/g, '');
      if (v !== 'UTF8' && v !== 'UNICODE') {
        throw new SqlError(
          SQLSTATE.invalidParameterValue,
          `invalid value for parameter "client_encoding": "${value}"`,
          'fdl-gateway only speaks UTF8.',
        );
      }
      return 'UTF8';
    }
    case 'restrict_nonsystem_relation_kind': {
      const kinds = value.split(',').map((k) => k.trim().toLowerCase());
      if (value.trim() !== '' && kinds.some((k) => k !== 'view' && k !== 'foreign-table'))
        throw new SqlError(
          SQLSTATE.invalidParameterValue,
          `invalid value for parameter "restrict_nonsystem_relation_kind": "${value}"`,
        );
      return value;
    }
    case 'datestyle': {
      // Output is always ISO; accept the order part so pgjdbc and psqlODBC are satisfied.
      const parts = value.split(',').map((p) => p.trim().toUpperCase());
      if (
        parts.some(
          (p) =>
            ![
              'ISO',
              'MDY',
              'DMY',
              'YMD',
              'US',
              'EUROPEAN',
              'NONEUROPEAN',
              'GERMAN',
              'SQL',
              'POSTGRES',
              'DEFAULT',
            ].includes(p),
        )
      ) {
        throw new SqlError(SQLSTATE.invalidParameterValue, `invalid value for parameter "DateStyle": "${value}"`);
      }
      if (parts.some((p) => ['SQL', 'POSTGRES', 'GERMAN'].includes(p))) {
        throw new SqlError(SQLSTATE.featureNotSupported, `DateStyle "${value}" is not supported: output is always ISO`);
      }
      return parts.includes('DMY') || parts.includes('EUROPEAN')
        ? 'ISO, DMY'
        : parts.includes('YMD')
          ? 'ISO, YMD'
          : 'ISO, MDY';
    }
    case 'intervalstyle':
      if (value.toLowerCase() !== 'postgres') {
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `IntervalStyle "${value}" is not supported: output is always postgres`,
        );
      }
      return 'postgres';
    case 'bytea_output': {
      // PostgreSQL's two values (case-insensitive); the encoders write hex only (wire/types/text.ts).
      const v = value.toLowerCase();
      if (v === 'hex') return 'hex';
      if (v === 'escape') {
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          'bytea_output "escape" is not supported: output is always hex',
          undefined,
          'bytea values are sent in hex (\\x…), which every PostgreSQL client library decodes.',
        );
      }
      throw new SqlError(
        SQLSTATE.invalidParameterValue,
        `invalid value for parameter "bytea_output": "${value}"`,
        undefined,
        'Available values: escape, hex.',
      );
    }
    case 'extra_float_digits': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < -15 || n > 3) {
        throw new SqlError(
          SQLSTATE.invalidParameterValue,
          `invalid value for parameter "extra_float_digits": "${value}"`,
        );
      }
      return String(n);
    }
    case 'statement_timeout':
    case 'idle_in_transaction_session_timeout':
    case 'lock_timeout':
      return String(parseDurationMs(name, value));
    case 'standard_conforming_strings':
      if (!/^(on|true|1|yes)$/i.test(value)) {
        throw new SqlError(SQLSTATE.featureNotSupported, 'standard_conforming_strings cannot be turned off');
      }
      return 'on';
    default:
      return value;
  }
}

/** PostgreSQL duration syntax: plain number = milliseconds, or with a unit (ms, s, min, h, d). */
export function parseDurationMs(name: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|h|d)?\s*$/i.exec(value);
  if (!m) throw new SqlError(SQLSTATE.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'ms').toLowerCase();
  const factor = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return Math.round(n * factor);
}
