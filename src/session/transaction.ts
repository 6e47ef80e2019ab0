/**
 * The transaction and savepoint interpreter of a session, as PostgreSQL answers it. Nothing is ever
 * written, so a transaction is only state: idle, in a block, or failed (commands ignored until its
 * end). Each operation returns its outcome as a value (command tag, a warning for the client, whether
 * the block began or ended); the wire layer encodes it. No I/O, no sockets: unit-tested directly.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** PostgreSQL's ReadyForQuery status: idle, in a transaction block, in a failed block. */
export type TransactionStatus = 'I' | 'T' | 'E';

export interface TransactionOutcome {
  /** CommandComplete tag. */
  tag: string;
  /** A WARNING to send before it (PostgreSQL's code and text). */
  warning?: { code: string; message: string };
  /** A block starts now: a moving ref is re-resolved first (the caller's job). */
  begins?: boolean;
  /** The block ended: portals without HOLD close. */
  ended?: boolean;
  /** A savepoint was set, released or rolled back to: how many savepoints the block holds now. */
  savepoints?: { kind: 'savepoint' | 'release' | 'rollbackTo'; depth: number };
  /**
   * The scope (the block, or a savepoint's subtransaction) this rolled back: the cursors declared in it
   * go, WITH HOLD or not, as PostgreSQL drops the portals an aborted (sub)transaction created.
   */
  aborted?: number;
}

/** The isolation levels under which a transaction reads one snapshot throughout (PostgreSQL's IsolationUsesXactSnapshot). */
const SNAPSHOT_LEVELS = new Set(['repeatable read', 'serializable']);

export class Transaction {
  private state: TransactionStatus = 'I';
  private savepoints: string[] = [];
  /** The block's isolation level, as PostgreSQL shows it. */
  private level = 'read committed';
  /** A statement of the block has read (or planned over) its version: PostgreSQL's first snapshot is taken. */
  private snapshotTaken = false;
  /** The open scopes, outermost first: the block's, then one per savepoint's subtransaction; each ID used once. */
  private openScopes: number[] = [];
  private lastScope = 0;

  get status(): TransactionStatus {
    return this.state;
  }

  /** True in an explicit block (failed or not). */
  get inBlock(): boolean {
    return this.state !== 'I';
  }

  /** `isolation`: the level BEGIN names, else the session's default_transaction_isolation; `tag`: the statement's. */
  begin(isolation: string, tag: 'BEGIN' | 'START TRANSACTION' = 'BEGIN'): TransactionOutcome {
    if (this.state !== 'I')
      return {
        tag,
        warning: { code: SQLSTATE.activeTransaction, message: 'there is already a transaction in progress' },
      };
    this.level = isolation;
    this.snapshotTaken = false;
    return { tag, begins: true };
  }

  /** The block's isolation level (outside a block, the caller's default applies). */
  get isolation(): string {
    return this.level;
  }

  /** A statement of the block reads its version from now on: the block's snapshot is taken. */
  reads(): void {
    if (this.state !== 'I') this.snapshotTaken = true;
  }

  /**
   * SET TRANSACTION ISOLATION LEVEL / SNAPSHOT inside a block, checked as PostgreSQL checks them
   * (before any query; a snapshot only under REPEATABLE READ or SERIALIZABLE); outside a block the
   * caller warns, as PostgreSQL does, and nothing is kept.
   */
  setIsolation(level: string): void {
    if (this.state === 'I') return;
    if (this.snapshotTaken)
      throw new SqlError(SQLSTATE.activeTransaction, 'SET TRANSACTION ISOLATION LEVEL must be called before any query');
    this.level = level;
  }

  /** Whether this block may import a snapshot now (throws PostgreSQL's refusal); `level` outside a block. */
  checkSnapshotImport(level: string): void {
    if (this.state !== 'I' && this.snapshotTaken)
      throw new SqlError(SQLSTATE.activeTransaction, 'SET TRANSACTION SNAPSHOT must be called before any query');
    if (!SNAPSHOT_LEVELS.has(this.state === 'I' ? level : this.level))
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        'a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ',
      );
  }

  /** The caller re-resolved the version: the block is open. */
  begun(): void {
    this.state = 'T';
    this.openScopes = [++this.lastScope];
  }

  /**
   * The scopes open now, outermost first (none outside a block): a cursor declared now belongs to
   * them, and goes when any of them is rolled back.
   */
  get scopes(): readonly number[] {
    return [...this.openScopes];
  }

  /** COMMIT of a failed block is a ROLLBACK, as in PostgreSQL. */
  commit(): TransactionOutcome {
    const failed = this.state === 'E';
    const warning = this.state === 'I' ? NO_TRANSACTION : undefined;
    const aborted = failed ? this.openScopes[0] : undefined;
    this.end();
    return { tag: failed ? 'ROLLBACK' : 'COMMIT', warning, ended: true, ...(aborted ? { aborted } : {}) };
  }

  rollback(): TransactionOutcome {
    const warning = this.state === 'I' ? NO_TRANSACTION : undefined;
    const aborted = this.openScopes[0];
    this.end();
    return { tag: 'ROLLBACK', warning, ended: true, ...(aborted ? { aborted } : {}) };
  }

  savepoint(name: string): TransactionOutcome {
    if (this.state === 'I')
      throw new SqlError(SQLSTATE.noActiveTransaction, 'SAVEPOINT can only be used in transaction blocks');
    this.savepoints.push(name);
    this.openScopes.push(++this.lastScope);
    return { tag: 'SAVEPOINT', savepoints: { kind: 'savepoint', depth: this.savepoints.length } };
  }

  release(name: string): TransactionOutcome {
    if (this.state === 'I')
      throw new SqlError(SQLSTATE.noActiveTransaction, 'RELEASE SAVEPOINT can only be used in transaction blocks');
    const at = this.savepoints.lastIndexOf(name);
    if (at < 0) throw new SqlError(SQLSTATE.invalidSavepointSpecification, `savepoint "${name}" does not exist`);
    this.savepoints.length = at;
    // what was declared inside now belongs to the enclosing scope, whose ID its cursors hold already
    this.openScopes.length = at + 1;
    return { tag: 'RELEASE', savepoints: { kind: 'release', depth: at } };
  }

  /** Nothing was written, so rolling back to a savepoint clears the failed state and undoes settings (set-show.ts). */
  rollbackTo(name: string): TransactionOutcome {
    if (this.state === 'I')
      throw new SqlError(SQLSTATE.noActiveTransaction, 'ROLLBACK TO SAVEPOINT can only be used in transaction blocks');
    const at = this.savepoints.lastIndexOf(name);
    if (at < 0) throw new SqlError(SQLSTATE.invalidSavepointSpecification, `savepoint "${name}" does not exist`);
    this.savepoints.length = at + 1;
    this.state = 'T';
    // the savepoint's subtransaction is aborted and begun again, as a new scope
    const aborted = this.openScopes[at + 1]!;
    this.openScopes.length = at + 1;
    this.openScopes.push(++this.lastScope);
    return { tag: 'ROLLBACK', savepoints: { kind: 'rollbackTo', depth: at + 1 }, aborted };
  }

  /** An error inside a block fails it; outside one there is nothing to fail. */
  fail(): void {
    if (this.state === 'T') this.state = 'E';
  }

  /** The statement may run now: only COMMIT/ROLLBACK (TO) leave a failed block. */
  admits(exitsFailedBlock: boolean): void {
    if (this.state === 'E' && !exitsFailedBlock) {
      throw new SqlError(
        SQLSTATE.inFailedTransaction,
        'current transaction is aborted, commands ignored until end of transaction block',
      );
    }
  }

  private end(): void {
    this.state = 'I';
    this.savepoints = [];
    this.openScopes = [];
  }
}

const NO_TRANSACTION = { code: SQLSTATE.noActiveTransaction, message: 'there is no transaction in progress' };
