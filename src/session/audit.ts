/**
 * The audit trail of a session: one line per statement — who read which version, what ran (a
 * fingerprint of its text, never the text: literals may hold secrets), how long it took, how many
 * rows it returned or which SQLSTATE it failed with. Lines are values handed to a sink (the log).
 */
import { createHash } from 'node:crypto';
import type { SqlError } from '../errors.js';

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

  succeeded(statement: AuditedStatement, ms: number, rows: number, cached: boolean): void {
    this.write({
      kind: statement.stmt.kind,
      sql_sha256: (statement.sqlHash ??= fingerprint(statement.sql)),
      ...(cached ? { cached: true } : {}),
      ms,
      rows,
      sqlstate: '00000',
    });
  }

  failed(err: SqlError): void {
    this.write({ sqlstate: err.sqlstate, error: err.message.split('\n')[0] });
  }

  private write(fields: Record<string, unknown>): void {
    const s = this.subject();
    this.sink({ event: 'statement', user: s.user, database: s.database, ref: s.ref, version: s.version, ...fields });
  }
}

/** A statement's text as a short fingerprint (first 16 hex digits of its SHA-256). */
export function fingerprint(sql: string): string {
  return createHash('sha256').update(sql).digest('hex').slice(0, 16);
}
