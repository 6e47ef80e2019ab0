/**
 * A session's PostgreSQL parameters (SET / SHOW / RESET). The values live here; DuckDB gets the
 * ones it must act on (TimeZone) and a mirror of all of them as per-connection variables, which the
 * catalog emulation reads (`current_setting`, `pg_settings`, `current_user`, `current_database`).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { UserHoldings } from './user-holdings.js';
import { LRUCache } from 'lru-cache';
import { SqlError, SQLSTATE } from '../errors.js';
import { defaultSettings, normalizeSetting, reportedName } from './parameters.js';
import { PRIVILEGED_SETTINGS, privilegedSettingMessage } from '../pg/catalog/privileged-settings.js';
import { PG_SETTINGS } from '../pg/catalog/pg-data.js';
import { isPgSetting, pgSettingDefault, pgSettingInput } from './pg-setting-input.js';
import { SHOWN_SETTINGS, shownSetting } from '../pg/catalog/setting-display.js';
import { posixZoneRefusal } from '../pg/posix-zones.js';
import { engineZone, fixedZone, offsetZoneName } from '../pg/fixed-zones.js';
import { quoteIdent, quoteLiteral } from '../quote.js';
import { variablesWhenTaken } from '../engine/session-connections.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';

/** Parameters a client may read but never change. */
const FIXED = new Set([
  'server_version',
  'server_version_num',
  'server_encoding',
  'integer_datetimes',
  'is_superuser',
  'block_size',
  'max_identifier_length',
  'in_hot_standby',
  'lc_collate',
  'lc_ctype',
]);

/** Parameters that cannot change what a query returns or how it is encoded (result cache keys). */
const OUTPUT_NEUTRAL = new Set([
  'application_name',
  'statement_timeout',
  'idle_in_transaction_session_timeout',
  'lock_timeout',
  'client_min_messages',
  'fdl.ref',
  'fdl.result_cache',
]);

// Keyed by a session's whole settings text (up to MAX_SETTINGS_BYTES): bounded by bytes, or 1,000
// sessions of 1 MiB of settings each held ~1 GB after they ended.
const fingerprints = new LRUCache<string, string>({
  max: 1000,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (v, full) => 2 * (full.length + v.length) + 64,
});
trimWhenIdle(lruTrim(fingerprints));
/** Version databases' schemas (useVersion), by database name: a name is one version of one repository. */
const schemasByDb = new LRUCache<string, string[]>({ max: 256 });
let fingerprintSeq = 0;

/**
 * What one session's parameters may hold. PostgreSQL sets no bound, but here every value is kept
 * twice (this map and its DuckDB variable) for as long as the session lasts, idle or not: 2,000
 * SETs of 260 KB took one idle session past 1 GB and other users' statements then failed 53200.
 * Clients set a handful of custom parameters of a few KB at most (a JWT's claims). Both bounds hold
 * per user, across all their sessions (userSettings): per session, 100 sessions held 100 × them.
 */
export const MAX_CUSTOM_PARAMETERS = 256;
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** Each session's parameters, by user (registered by the session's owner, wire/session.ts). */
export const userSettings = new UserHoldings<SessionSettings>();

export interface SettingDefaults {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export class SessionSettings {
  private readonly values: Map<string, string>;
  private outputKey: string | null = null;
  /** The attached version (DuckDB database) and its schemas: what search_path can name. */
  private version: { db: string; schemas: string[] } | null = null;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly user: string,
    private readonly limits: SettingDefaults,
    /** Send ParameterStatus for a reported parameter that changed. */
    private readonly report: (name: string, value: string) => void,
  ) {
    this.values = this.defaults();
  }

  /** PostgreSQL defaults, with the gateway's configured timeouts. */
  private defaults(): Map<string, string> {
    const d = defaultSettings(this.user);
    d.set('search_path', this.defaultSearchPath());
    d.set('statement_timeout', String(this.limits.statementTimeoutMs));
    d.set('idle_in_transaction_session_timeout', String(this.limits.idleInTransactionTimeoutMs));
    return d;
  }

  /**
   * The parameters that shape query output, as a short token (part of a result cache key): equal
   * tokens mean equal parameters. Tokens are never reused, so a forgotten one only costs misses.
   */
  fingerprint(): string {
    if (this.outputKey === null) {
      const full = this.entries()
        .filter(([k]) => !OUTPUT_NEUTRAL.has(k))
        .map(([k, v]) => `${k}=${v}`)
        .join('\n');
      let token = fingerprints.get(full);
      if (token === undefined) fingerprints.set(full, (token = `s${++fingerprintSeq}`));
      this.outputKey = token;
    }
    return this.outputKey;
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  entries(): [string, string][] {
    // Code-point order: localeCompare's first call loads ICU's collator (tens of ms on the event loop).
    return [...this.values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  show(name: string): string {
    if (PRIVILEGED_SETTINGS.has(name))
      throw new SqlError(SQLSTATE.insufficientPrivilege, privilegedSettingMessage(name));
    const v = this.values.get(name);
    if (v === undefined) {
      if (name.includes('.')) return ''; // custom (dotted) parameters read as empty, as in PostgreSQL
      const fixed = PG_SETTINGS.find((r) => r[0] === name); // PostgreSQL's own, at its default (work_mem → 4MB)
      if (fixed) return SHOWN_SETTINGS.get(name) ?? String(fixed[1]);
      throw new SqlError(SQLSTATE.undefinedObject, `unrecognized configuration parameter "${name}"`);
    }
    return this.display(name, v);
  }

  /** A value as PostgreSQL's SHOW prints it: with a unit, in the largest one that fits (statement_timeout 5000 → 5s). */
  display(name: string, value: string): string {
    const unit = PG_SETTINGS.find((r) => r[0] === name)?.[2];
    return typeof unit === 'string' ? shownSetting(value, unit) : value;
  }

  /**
   * The operator's limits are ceilings: a session may lower statement_timeout or
   * idle_in_transaction_session_timeout, never raise or disable (0) them. Returns the value kept and,
   * when it is not the one asked for, why.
   */
  private capped(name: string, value: string): { value: string; warning?: string } {
    const ceiling =
      name === 'statement_timeout'
        ? this.limits.statementTimeoutMs
        : name === 'idle_in_transaction_session_timeout'
          ? this.limits.idleInTransactionTimeoutMs
          : 0;
    if (ceiling <= 0) return { value };
    const ms = Number(value);
    if (ms > 0 && ms <= ceiling) return { value };
    return {
      value: String(ceiling),
      warning: `${name} cannot exceed the gateway's limit of ${ceiling} ms; it stays ${ceiling} ms`,
    };
  }

  /** SET (value) or RESET (null) of one parameter; returns a warning for the client, if any. */
  async set(name: string, value: string | null): Promise<string | undefined> {
    if (!this.defaults().has(name) && !name.includes('.') && isPgSetting(name) && !PRIVILEGED_SETTINGS.has(name)) {
      // PostgreSQL's own setting the gateway shows but does not use: kept and shown back, no effect.
      const { shown, setting } = value === null ? pgSettingDefault(name) : pgSettingInput(name, value);
      this.values.set(name, shown);
      this.outputKey = null;
      // pg_settings.setting holds the base-unit number (`65536` for `64MB`): mirrored beside the shown text.
      await this.mirror([
        [name, shown],
        [`${name}__base`, setting],
      ]);
      return;
    }
    if (!this.values.has(name) && !name.includes('.')) {
      if (await this.isEngineSetting(name)) {
        throw new SqlError(
          SQLSTATE.insufficientPrivilege,
          `permission denied to set parameter "${name}": DuckDB engine settings are fixed by the gateway`,
        );
      }
      throw new SqlError(SQLSTATE.undefinedObject, `unrecognized configuration parameter "${name}"`);
    }
    if (FIXED.has(name)) throw new SqlError(SQLSTATE.cantChangeRuntimeParam, `parameter "${name}" cannot be changed`);
    // No user of the gateway is a superuser: as PostgreSQL, only the authenticated user may be set.
    if (name === 'session_authorization' && value !== null && normalizeSetting(name, value) !== this.user) {
      throw new SqlError(
        SQLSTATE.insufficientPrivilege,
        `permission denied to set session authorization "${normalizeSetting(name, value)}"`,
      );
    }
    if (name === 'transaction_read_only' || name === 'default_transaction_read_only') {
      if (value !== null && !/^(on|true|1|yes)$/i.test(value)) {
        throw new SqlError(SQLSTATE.readOnlyTransaction, 'fdl-gateway is read-only: transactions are always read only');
      }
      return;
    }
    const { value: normalized, warning } = this.capped(
      name,
      value === null ? (this.defaults().get(name) ?? '') : normalizeSetting(name, value),
    );
    this.checkBudget(name, normalized);
    // A zone of a fixed offset is shown as PostgreSQL names it (`utc+3` → `UTC+3`, `5.5` → `<+05:30>-05:30`).
    const shown = name === 'timezone' ? await this.setTimeZone(normalized) : normalized;
    if (name === 'search_path') await this.applySearchPath(normalized);
    this.values.set(name, shown);
    this.outputKey = null;
    await this.mirror([[name, shown]]);
    const reported = reportedName(name);
    if (reported) this.report(reported, shown);
    return warning;
  }

  /** Refuses (54000) a value that would take the session past MAX_CUSTOM_PARAMETERS or MAX_SETTINGS_BYTES. */
  private checkBudget(name: string, value: string): void {
    // A RESET custom parameter stays known with an empty value, as in PostgreSQL, but holds no place.
    if (value !== '' && !this.values.get(name) && name.includes('.')) {
      let custom = this.customCount();
      for (const other of userSettings.others(this)) custom += other.customCount();
      if (custom >= MAX_CUSTOM_PARAMETERS) {
        throw new SqlError(
          SQLSTATE.programLimitExceeded,
          `too many custom parameters: one user's sessions may set at most ${MAX_CUSTOM_PARAMETERS}`,
          undefined,
          'RESET parameters the session no longer needs.',
        );
      }
    }
    let bytes = Buffer.byteLength(name) + Buffer.byteLength(value) + this.heldBytes(name);
    // Another session's defaults are not the user's doing: only what it set counts.
    for (const other of userSettings.others(this)) bytes += other.setBytes();
    if (bytes > MAX_SETTINGS_BYTES) {
      throw new SqlError(
        SQLSTATE.programLimitExceeded,
        `parameter "${name}" not set: this user's sessions' parameters would hold ${bytes} bytes, more than the limit of ${MAX_SETTINGS_BYTES}`,
        undefined,
        'Use shorter values, or RESET parameters the session no longer needs.',
      );
    }
  }

  /** Custom parameters (a dotted name, not built in) set to a value now. */
  customCount(): number {
    const builtIn = this.defaults();
    let custom = 0;
    for (const [k, v] of this.values) if (v !== '' && k.includes('.') && !builtIn.has(k)) custom++;
    return custom;
  }

  /** Bytes of the parameters' names and values, but `except`'s. */
  heldBytes(except?: string): number {
    let bytes = 0;
    for (const [k, v] of this.values) if (k !== except) bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
    return bytes;
  }

  /** Bytes of the parameters set away from their defaults. */
  setBytes(): number {
    const d = this.defaults();
    let bytes = 0;
    for (const [k, v] of this.values) if (d.get(k) !== v) bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
    return bytes;
  }

  /** The parameters RESET ALL would change: those whose value is not the default. */
  differingFromDefaults(): string[] {
    return [...this.defaults()].filter(([k, v]) => this.values.get(k) !== v).map(([k]) => k);
  }

  async resetAll(): Promise<void> {
    const changed: [string, string][] = [];
    for (const [k, v] of this.defaults()) {
      if (this.values.get(k) === v) continue;
      if (k === 'timezone') await this.setTimeZone(v);
      if (k === 'search_path') await this.applySearchPath(v);
      this.values.set(k, v);
      this.outputKey = null;
      changed.push([k, v]);
      const reported = reportedName(k);
      if (reported) this.report(reported, v);
    }
    await this.mirror(changed);
  }

  /** Startup parameters (and `options=-c x=y`): as SET, without ParameterStatus; unknown names ignored. */
  async applyStartup(name: string, value: string): Promise<void> {
    if (!this.values.has(name) && !name.includes('.')) return; // PostgreSQL would refuse; clients send odd ones
    const normalized = this.capped(name, normalizeSetting(name, value)).value;
    this.checkBudget(name, normalized);
    this.values.set(name, name === 'timezone' ? await this.setTimeZone(normalized) : normalized);
    this.outputKey = null;
  }

  /**
   * Mirror everything, plus the session's identity (and `more` variables, VARCHAR), once the startup
   * settings are applied: one DuckDB call besides reading what the connection holds.
   */
  async describeSession(
    database: string,
    pid: number,
    repositories: string[],
    more: [string, string][] = [],
  ): Promise<void> {
    // A kept connection already holds the defaults' mirror (baselineVariables): set only what differs.
    // A session connection held exactly its instance's baseline when taken (what useVersion mirrored
    // since is this.values' own), so it is not read back; any other connection is.
    const held =
      variablesWhenTaken(this.conn) ??
      new Map(
        (await this.conn.runAndReadAll("SELECT name, value FROM duckdb_variables() WHERE type = 'VARCHAR'"))
          .getRows()
          .map(([name, value]) => [String(name), String(value)]),
      );
    const changed = [...this.values].filter(([k, v]) => held.get(`pg_${k}`) !== v);
    await this.conn.run(
      [
        ...mirroredVariables(changed).map(([name, v]) => `SET VARIABLE ${quoteIdent(name)} = ${sqlString(v)}`),
        `SET VARIABLE pg_user = ${sqlString(this.user)}`,
        `SET VARIABLE pg_database = ${sqlString(database)}`,
        `SET VARIABLE pg_repositories = [${repositories.map(sqlString).join(', ')}]::VARCHAR[]`,
        `SET VARIABLE pg_backend_pid = ${pid}`,
        ...more.map(([name, v]) => `SET VARIABLE ${quoteIdent(name)} = ${sqlString(v)}`),
      ].join('; '),
    );
  }

  /**
   * The session now reads version database `db`. Its schemas are visible by default, as `public` is
   * in PostgreSQL: the default search_path lists them (`"$user", public, sales`), so `\dt`,
   * pg_table_is_visible and unqualified table names find them; a search_path the client set is kept.
   * DuckDB's USE resets its own search_path, so it is set again for every version.
   */
  async useVersion(db: string): Promise<void> {
    const wasDefault = this.values.get('search_path') === this.defaultSearchPath();
    this.version = { db, schemas: await this.schemasOf(db) };
    if (wasDefault) {
      const path = this.defaultSearchPath();
      this.values.set('search_path', path);
      this.outputKey = null;
      await this.mirror([['search_path', path]]);
    }
    await this.applySearchPath(this.values.get('search_path') ?? this.defaultSearchPath());
  }

  /** A version database's schemas, asked of DuckDB once per database: a version's schemas never change. */
  private async schemasOf(db: string): Promise<string[]> {
    let schemas = schemasByDb.get(db);
    if (!schemas) {
      const r = await this.conn.runAndReadAll(
        `SELECT schema_name FROM duckdb_schemas() WHERE database_name = ${sqlString(db)} AND (NOT internal OR schema_name = 'main') ORDER BY schema_name = 'main' DESC, schema_name`,
      );
      schemas = r.getRows().map((row) => String(row[0]));
      if (schemas.length > 0) schemasByDb.set(db, schemas);
    }
    return schemas;
  }

  /** The version's schemas (DuckDB names). */
  versionSchemas(): readonly string[] {
    return this.version?.schemas ?? [];
  }

  /** Schemas of the version on the search_path, in order (PostgreSQL's `public` is DuckDB's `main`). */
  searchSchemas(path = this.values.get('search_path') ?? ''): string[] {
    const schemas = this.version?.schemas ?? [];
    const out: string[] = [];
    for (const raw of path.split(',')) {
      let name = raw.trim();
      name =
        name.startsWith('"') && name.endsWith('"') && name.length >= 2
          ? name.slice(1, -1).replace(/""/g, '"')
          : name.toLowerCase();
      if (name === '$user') name = this.user;
      if (name === 'public' && !schemas.includes('public')) name = 'main';
      if (schemas.includes(name) && !out.includes(name)) out.push(name);
    }
    return out;
  }

  private defaultSearchPath(): string {
    // PostgreSQL's own default, then DuckLake's default schema `main`, then the version's others.
    const extra = (this.version?.schemas ?? []).filter((s) => s !== 'public');
    return ['"$user"', 'public', ...extra.map((s) => (/^[a-z_][a-z0-9_$]*$/.test(s) ? s : quoteIdent(s)))].join(', ');
  }

  private async applySearchPath(path: string): Promise<void> {
    if (!this.version) return;
    const db = quoteIdent(this.version.db);
    const schemas = this.searchSchemas(path);
    const entries = schemas.map((s) => `${db}.${quoteIdent(s)}`);
    // An empty path still resolves nothing unqualified outside the version: its main schema stays first.
    const list = entries.length > 0 ? entries.join(',') : `${db}.main`;
    // The catalog's _search_path() reads the resolved list (pg_table_is_visible, ::regclass …, per row).
    const visible = `[${(schemas.length > 0 ? schemas : ['main']).map(sqlString).join(', ')}]::VARCHAR[]`;
    await this.conn.run(`SET search_path = ${sqlString(list)}; SET VARIABLE pg_search_schemas = ${visible}`);
  }

  private async mirror(settings: Iterable<[string, string]>): Promise<void> {
    const parts = mirroredVariables(settings).map(([name, v]) => `SET VARIABLE ${quoteIdent(name)} = ${sqlString(v)}`);
    if (parts.length) await this.conn.run(parts.join('; '));
  }

  private async isEngineSetting(name: string): Promise<boolean> {
    const r = await this.conn.runAndReadAll(
      `SELECT 1 FROM duckdb_settings() WHERE lower(name) = ${sqlString(name.toLowerCase())}`,
    );
    return r.currentRowCount > 0;
  }

  /** Sets DuckDB's session zone for the TimeZone text `tz`; answers the value SHOW TimeZone shows. */
  private async setTimeZone(tz: string): Promise<string> {
    const fixed = fixedZone(tz);
    if (fixed) {
      const zone = engineZone(fixed.east);
      if (zone === null)
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `time zone "${tz}" (UTC${offsetZoneName(fixed.east).replace(/^<([^>]*)>.*$/, '$1')}) is not supported by fdl-gateway`,
          undefined,
          "DuckDB knows a fixed offset only as a zone of the tz database, and none has kept this one since 1970. Name the zone of a place instead, such as 'America/New_York' (pgjdbc: java -Duser.timezone=America/New_York).",
        );
      await this.conn.run(`SET TimeZone = ${sqlString(zone)}`);
      return fixed.shown;
    }
    const posix = posixZoneRefusal(tz);
    if (posix) throw posix;
    try {
      await this.conn.run(`SET TimeZone = ${sqlString(tz)}`);
    } catch {
      throw new SqlError(SQLSTATE.invalidParameterValue, `invalid value for parameter "TimeZone": "${tz}"`);
    }
    return tz;
  }
}

const sqlString = quoteLiteral;

/**
 * The DuckDB variables that mirror settings (`pg_<name>`, read by the catalog emulation): custom
 * (dotted) parameters too, so current_setting('myapp.tenant') reads them after SET.
 */
export function mirroredVariables(settings: Iterable<[string, string]>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of settings) if (/^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_$]*)*$/.test(k)) out.push([`pg_${k}`, v]);
  return out;
}

/**
 * The mirror of the default settings, which a session connection keeps between sessions
 * (engine/session-connections.ts): a session then sets only the variables its own values change.
 */
export function baselineVariables(limits: SettingDefaults): ReadonlyMap<string, string> {
  const d = defaultSettings('');
  d.set('statement_timeout', String(limits.statementTimeoutMs));
  d.set('idle_in_transaction_session_timeout', String(limits.idleInTransactionTimeoutMs));
  return new Map(mirroredVariables(d));
}
