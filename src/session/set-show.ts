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
  /** A WARNING for the client (a value capped to the operator's ceiling, SET LOCAL outside a block). */
  warning?: string;
  /** The WARNING's SQLSTATE, when not the plain 01000. */
  warningCode?: string;
  /** Statements kept by text were bound with the old value (search_path's names, TimeZone, a mirrored variable). */
  forgetStatements: boolean;
}

/** What an open transaction block changed of one setting, to undo it as PostgreSQL does at the block's end. */
interface BlockChange {
  /** The value as the block found it (undefined: never set, its default). */
  readonly before: string | undefined;
  /** The last session-level value the block set (SET, RESET), kept by COMMIT. */
  session?: { value: string | null };
  /** Whether the last change was SET LOCAL (undone by COMMIT too). */
  local: boolean;
}

/** One change inside a block, with what it replaced, so ROLLBACK TO SAVEPOINT can put it back. */
interface JournalEntry {
  readonly name: string;
  readonly value: string | undefined;
  readonly change: BlockChange | undefined;
}

export class SetShow {
  private readonly block = new Map<string, BlockChange>();
  /** The block's changes in order, and where each open savepoint started in it. */
  private readonly journal: JournalEntry[] = [];
  private readonly marks: number[] = [];

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
    return this.settings.entries().map(([k, v]) => [k, this.settings.display(k, v), '']);
  }

  /**
   * SET (value) or RESET (null) of one parameter, LOCAL or not. A move to another version (fdl.ref) is
   * attached here. Inside a transaction block the change is recorded so that the block's end undoes it
   * as PostgreSQL does: ROLLBACK every change, COMMIT only SET LOCAL's. Outside a block SET LOCAL has
   * no effect, with PostgreSQL's warning.
   */
  async set(name: string, value: string | null, inBlock: boolean, local = false): Promise<SettingOutcome> {
    if (local && !inBlock)
      return {
        warning: 'SET LOCAL can only be used in transaction blocks',
        warningCode: SQLSTATE.noActiveTransaction,
        forgetStatements: false,
      };
    if (inBlock && name !== 'fdl.ref') {
      this.journaled(name);
      const change = this.block.get(name) ?? { before: this.settings.get(name), local };
      const outcome = await this.apply(name, value, inBlock);
      change.local = local;
      if (!local) change.session = { value };
      this.block.set(name, change);
      return outcome;
    }
    return this.apply(name, value, inBlock);
  }

  /** The block ended: undo what it changed (all of it after ROLLBACK, the SET LOCALs after COMMIT). */
  async endBlock(committed: boolean): Promise<SettingOutcome> {
    let forgetStatements = false;
    for (const [name, change] of this.block) {
      if (committed && !change.local) continue;
      const back = committed && change.session ? change.session.value : (change.before ?? null);
      forgetStatements = (await this.apply(name, back, false)).forgetStatements || forgetStatements;
    }
    this.block.clear();
    this.journal.length = 0;
    this.marks.length = 0;
    return { forgetStatements };
  }

  /** A savepoint set, released or rolled back to (`depth`: the savepoints open after it), as PostgreSQL's subtransactions. */
  async savepointMoved(moved: {
    kind: 'savepoint' | 'release' | 'rollbackTo';
    depth: number;
  }): Promise<SettingOutcome> {
    if (moved.kind === 'savepoint') {
      this.marks.push(this.journal.length);
      return { forgetStatements: false };
    }
    this.marks.length = moved.depth;
    if (moved.kind === 'release') return { forgetStatements: false };
    // ROLLBACK TO: every change since the savepoint was set, undone newest first.
    let forgetStatements = false;
    const start = this.marks[moved.depth - 1] ?? this.journal.length;
    for (const entry of this.journal.splice(start).reverse()) {
      forgetStatements =
        (await this.apply(entry.name, entry.value ?? null, false)).forgetStatements || forgetStatements;
      if (entry.change) this.block.set(entry.name, entry.change);
      else this.block.delete(entry.name);
    }
    return { forgetStatements };
  }

  private journaled(name: string): void {
    const change = this.block.get(name);
    this.journal.push({ name, value: this.settings.get(name), change: change && { ...change } });
  }

  private async apply(name: string, value: string | null, inBlock: boolean): Promise<SettingOutcome> {
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
    // Every setting is mirrored into DuckDB (TimeZone itself, the rest as variables), and DuckDB folds
    // both into a statement when it prepares it: a text kept across the change would answer with the old value.
    return { ...(warning ? { warning } : {}), forgetStatements: true };
  }

  /**
   * `set_config(name, value, is_local)` as PostgreSQL runs it: SET (is_local false) or SET LOCAL, with
   * SET's checks and errors, answering the value as SHOW then reads it. Outside a transaction block a
   * local setting lasts only for its own statement, so it is checked, read and put back.
   */
  async setConfig(call: SetConfigCall, inBlock: boolean): Promise<SettingOutcome & { value: string }> {
    if (!call.local || inBlock) {
      const outcome = await this.set(call.name, call.value, inBlock, call.local);
      return { ...outcome, value: this.show(call.name) };
    }
    if (call.name.startsWith('fdl.')) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `set_config(…, is_local => true) of "${call.name}" is not supported by fdl-gateway`,
        undefined,
        "Use set_config('name', 'value', false) or SET name = value (a session setting), and set it back when done.",
      );
    }
    const before = this.settings.get(call.name);
    const outcome = await this.apply(call.name, call.value, inBlock);
    const value = this.show(call.name);
    await this.apply(call.name, before ?? null, inBlock);
    return { ...outcome, value };
  }

  /**
   * RESET ALL (and DISCARD ALL, which never runs in a block): search_path may change with it. In a
   * block it is a session-level RESET of every parameter it changes, undone by ROLLBACK as those are.
   */
  async resetAll(inBlock = false): Promise<SettingOutcome> {
    if (inBlock) {
      for (const name of this.settings.differingFromDefaults()) {
        this.journaled(name);
        const change = this.block.get(name) ?? { before: this.settings.get(name), local: false };
        change.local = false;
        change.session = { value: null };
        this.block.set(name, change);
      }
    }
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
