/**
 * The audit trail of a session: one line per statement — who read which version, what ran (a
 * fingerprint of its text, never the text: literals may hold secrets), how long it took, how many
 * rows it returned or which SQLSTATE it failed with. Lines are values handed to a sink (the log).
 */
import { createHash } from 'node:crypto';
import { SQLSTATE, type SqlError } from '../errors.js';
import { statementEnded } from '../stages.js';

/** Receives each line; it is the sink's own (it may add fields to it). */
export type AuditSink = (entry: Record<string, unknown>) => void;

/** Who is reading what, at the moment a line is written. */
export interface AuditSubject {
  readonly user: string;
  readonly database: string;
  readonly ref: string;
  readonly version: string | undefined;
}

/** What the audit line says about the statement itself (a PreparedStmt fits). */
export interface AuditedStatement {
  readonly sql: string;
  readonly stmt: { readonly kind: string };
  /** The fingerprint, computed once per statement. */
  sqlHash?: string;
}

export class StatementAudit {
  constructor(
    private readonly sink: AuditSink,
    private readonly subject: () => AuditSubject,
  ) {}

  // One object literal per line (no spreads): this runs once per statement, on the hot path.
  succeeded(statement: AuditedStatement, ms: number, rows: number, cached: boolean): void {
    statementEnded(); // the stage split (stages.ts) closes with the statement's line
    const s = this.subject();
    const kind = statement.stmt.kind;
    const sql_sha256 = (statement.sqlHash ??= fingerprint(statement.sql));
    this.sink(
      cached
        ? {
            event: 'statement',
            user: s.user,
            database: s.database,
            ref: s.ref,
            version: s.version,
            kind,
            sql_sha256,
            cached: true,
            ms,
            rows,
            sqlstate: SQLSTATE.successfulCompletion,
          }
        : {
            event: 'statement',
            user: s.user,
            database: s.database,
            ref: s.ref,
            version: s.version,
            kind,
            sql_sha256,
            ms,
            rows,
            sqlstate: SQLSTATE.successfulCompletion,
          },
    );
  }

  /**
   * A statement failed (`statement`: what was being parsed, bound or run, when known). Its error
   * text is the client's alone: the log gets the fingerprint and the SQLSTATE.
   */
  failed(err: SqlError, statement?: string | AuditedStatement): void {
    statementEnded();
    const s = this.subject();
    const line: Record<string, unknown> = {
      event: 'statement',
      user: s.user,
      database: s.database,
      ref: s.ref,
      version: s.version,
    };
    if (typeof statement === 'string') line.sql_sha256 = fingerprint(statement);
    else if (statement) {
      line.kind = statement.stmt.kind;
      line.sql_sha256 = statement.sqlHash ??= fingerprint(statement.sql);
    }
    // No error text: DuckDB's messages quote values unquoted too (`missing ): <pattern>`, error(x)
    // is x itself), so no scrubbing of ours could keep a literal out. The SQLSTATE says what failed.
    line.sqlstate = err.sqlstate;
    this.sink(line);
  }
}

/** A statement's text as a short fingerprint (first 16 hex digits of its SHA-256). */
export function fingerprint(sql: string): string {
  return createHash('sha256').update(sql).digest('hex').slice(0, 16);
}
