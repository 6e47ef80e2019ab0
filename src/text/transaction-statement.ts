/**
 * Transaction control read by PostgreSQL's own grammar (pg/pg-parse.ts). Patterns of ours had read
 * `COMMIT garbage` and `BEGIN READ ONLY garbage` as COMMIT and BEGIN, and `COMMIT AND CHAIN` as a
 * COMMIT that ends the block, where PostgreSQL answers 42601 or starts the next block at once.
 */
import { SQLSTATE } from '../errors.js';
import { parsePg } from '../pg/pg-parse.js';
import type { Statement } from './statement.js';

type Node = Record<string, any>;

/** BEGIN/START's isolation level, as PostgreSQL shows it (`repeatable read`), and READ ONLY/WRITE. */
function characteristics(options: Node[]): { readOnly: boolean | null; isolation: string | null } {
  let readOnly: boolean | null = null;
  let isolation: string | null = null;
  for (const o of options) {
    const d = o['DefElem'] as Node | undefined;
    const value = d?.['arg']?.['A_Const'] as Node | undefined;
    if (d?.['defname'] === 'transaction_read_only') readOnly = (value?.['ival']?.ival ?? 0) === 1;
    if (d?.['defname'] === 'transaction_isolation') isolation = String(value?.['sval']?.sval ?? '') || null;
  }
  return { readOnly, isolation };
}

/**
 * `s` starts with BEGIN, START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT or RELEASE; null when it is none
 * of PostgreSQL's transaction statements (the caller's grammar check has answered a syntax error).
 */
export function classifyTransaction(s: string): Statement | null {
  const stmt = parsePg(s)?.stmts?.[0]?.stmt?.['TransactionStmt'] as Node | undefined;
  if (!stmt) return null;
  const chain = stmt['chain'] === true;
  const savepoint = String(stmt['savepoint_name'] ?? '');
  switch (stmt['kind']) {
    case 'TRANS_STMT_BEGIN':
      return { kind: 'begin', ...characteristics((stmt['options'] ?? []) as Node[]) };
    case 'TRANS_STMT_START':
      // PostgreSQL's command tag for it is START TRANSACTION, not BEGIN
      return { kind: 'begin', start: true, ...characteristics((stmt['options'] ?? []) as Node[]) };
    case 'TRANS_STMT_COMMIT':
      return { kind: 'commit', chain };
    case 'TRANS_STMT_ROLLBACK':
      return { kind: 'rollback', chain };
    case 'TRANS_STMT_SAVEPOINT':
      return { kind: 'savepoint', name: savepoint };
    case 'TRANS_STMT_RELEASE':
      return { kind: 'release', name: savepoint };
    case 'TRANS_STMT_ROLLBACK_TO':
      return { kind: 'rollbackTo', name: savepoint };
    case 'TRANS_STMT_COMMIT_PREPARED':
    case 'TRANS_STMT_ROLLBACK_PREPARED':
      // No transaction is ever prepared here: PostgreSQL's answer for an unknown one.
      return {
        kind: 'refused',
        sqlstate: SQLSTATE.undefinedObject,
        message: `prepared transaction with identifier "${String(stmt['gid'] ?? '')}" does not exist`,
      };
    default:
      return {
        kind: 'refused',
        sqlstate: SQLSTATE.featureNotSupported,
        message: 'PREPARE TRANSACTION is not supported by fdl-gateway',
      };
  }
}
