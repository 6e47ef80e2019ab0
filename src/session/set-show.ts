/**
 * SET / SHOW / RESET as a session interprets them: the gateway's own parameters (`fdl.ref`,
 * `fdl.version`, `fdl.repository`, `fdl.result_cache`) here, PostgreSQL's in SessionSettings.
 * Returns what the caller must do (warn the client, forget statements bound along an old
 * search_path) as a value; no protocol.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { SessionSettings } from './settings.js';
import type { RefFollower } from './ref-follower.js';
import type { SetConfigCall } from '../pg/set-config.js';

export interface SettingOutcome {
  /** A WARNING for the client (a value capped to the operator's ceiling). */
  warning?: string;
  /** Statements kept by text were bound along the old search_path: unqualified names may now mean other tables. */
  forgetStatements: boolean;
}

export class SetShow {
  constructor(
    private readonly settings: SessionSettings,
    private readonly follower: RefFollower,
    private readonly repo: string,
  ) {}

  show(name: string): string {
    if (name === 'fdl.ref') return this.follower.ref;
    if (name === 'fdl.version') return this.follower.lease?.versionId ?? '';
    if (name === 'fdl.repository') return this.repo;
    return this.settings.show(name);
  }

  /** SHOW ALL: name, setting, description. */
  showAll(): [string, string, string][] {
    return this.settings.entries().map(([k, v]) => [k, v, '']);
  }

  /** SET (value) or RESET (null) of one parameter. A move to another version (fdl.ref) is attached here. */
  async set(name: string, value: string | null, inBlock: boolean): Promise<SettingOutcome> {
    if (name === 'fdl.ref') {
      if (inBlock) throw refInBlock(this.repo, value);
      await this.follower.follow(value ?? ''); // set by the client: not announced
      return { forgetStatements: false }; // attaching the new version already forgot them
    }
    if (name === 'fdl.result_cache') {
      await this.settings.set(name, value === null ? 'on' : onOff(name, value));
      return { forgetStatements: false };
    }
    if (name.startsWith('fdl.'))
      throw new SqlError(SQLSTATE.cantChangeRuntimeParam, `parameter "${name}" cannot be changed`);
    const warning = await this.settings.set(name, value);
    return { ...(warning ? { warning } : {}), forgetStatements: name === 'search_path' };
  }

  /**
   * `set_config(name, value, is_local)` as PostgreSQL runs it: SET (is_local false) or SET LOCAL, with
   * SET's checks and errors, answering the value as SHOW then reads it. Outside a transaction block a
   * local setting lasts only for its own statement, so it is checked, read and put back.
   */
  async setConfig(call: SetConfigCall, inBlock: boolean): Promise<SettingOutcome & { value: string }> {
    if (!call.local) {
      const outcome = await this.set(call.name, call.value, inBlock);
      return { ...outcome, value: this.show(call.name) };
    }
    if (inBlock || call.name.startsWith('fdl.')) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `set_config(…, is_local => true) of "${call.name}"${inBlock ? ' inside a transaction block' : ''} is not supported by fdl-gateway`,
        undefined,
        "Use set_config('name', 'value', false) or SET name = value (a session setting), and set it back when done.",
      );
    }
    const before = this.settings.get(call.name);
    const outcome = await this.set(call.name, call.value, inBlock);
    const value = this.show(call.name);
    await this.set(call.name, before ?? '', inBlock);
    return { ...outcome, value };
  }

  /** RESET ALL (and DISCARD ALL): search_path may change with it. */
  async resetAll(): Promise<SettingOutcome> {
    await this.settings.resetAll();
    return { forgetStatements: true };
  }

  /** Startup parameters (and `options=-c x=y`), the way SET would apply them, without ParameterStatus noise. */
  async applyStartup(name: string, value: string): Promise<void> {
    if (name === 'fdl.ref') {
      this.follower.request(value);
      return;
    }
    await this.settings.applyStartup(name, name === 'fdl.result_cache' ? onOff(name, value) : value);
  }
}

/** A transaction reads one version; the error names the ways to choose another that work. */
function refInBlock(repo: string, ref: string | null): SqlError {
  const r = ref && /^[A-Za-z0-9._/-]+$/.test(ref) ? ref : 'REF';
  return new SqlError(
    SQLSTATE.activeTransaction,
    'SET fdl.ref cannot run inside a transaction block',
    'A transaction reads one version from its first statement to its end.',
    `End the transaction (COMMIT or ROLLBACK) and run SET fdl.ref in autocommit mode (psycopg: connection.autocommit = True; JDBC: setAutoCommit(true)), or choose the ref when connecting: database "${repo}~${r}" (or "${repo}@${r}"), or options=-c fdl.ref=${r}.`,
  );
}

/** A Boolean parameter as PostgreSQL spells its values. */
export function onOff(name: string, value: string): 'on' | 'off' {
  if (/^(on|true|yes|1)$/i.test(value)) return 'on';
  if (/^(off|false|no|0)$/i.test(value)) return 'off';
  throw new SqlError(SQLSTATE.invalidParameterValue, `parameter "${name}" requires a Boolean value`);
}
