/**
 * A text that differs from one the session planned only inside its comments (text/comment-shape.ts)
 * runs that plan (issue 26): no analysis, PostgreSQL parse, engine-line check or DuckDB prepare again.
 * PostgreSQL and DuckDB read a comment as a separator, so both texts are one statement to them; what
 * planning reads from a text's own characters instead of its tokens must read the same from both,
 * or the new text is planned as itself:
 * - the internal-name and Unicode-escape refusals (`refuseInternalNames`, comments included);
 * - the rewrite's flags read from the whole text (`tableoid`/`xmin`…, `float`: pg/rewrite-shapes.ts);
 * - the ceilings that go by the text's length: the composed text's bound (text/composed-ceiling.ts)
 *   and the longest text typed by PostgreSQL's grammar (planner.ts PG_GRAMMAR_MAX_CHARS).
 * The ceiling on a text's size and nesting and its classification are the new text's own (checked
 * before the statement cache is asked, statement-preparer.ts).
 *
 * The new text gets a plan of its own (its text in the audit line and in errors, its own result-cache
 * memo) that runs the planned one's DuckDB statement and holds a reference to it (plan.ts `sharedFrom`).
 */
import { refuseInternalNames } from '../analysis/containment.js';
import { readsSameText } from '../pg/rewrite-shapes.js';
import { composedTextLimit } from '../text/composed-ceiling.js';
import type { Statement } from '../text/classify.js';
import type { PreparedStmt } from './plan.js';
import { PG_GRAMMAR_MAX_CHARS } from './planner.js';

/** Whether `text`, of the same comment shape as `planned`'s, may run `planned`. */
export function sharesPlan(planned: PreparedStmt, text: string, stmt: Statement): boolean {
  if (stmt.kind !== 'query' || planned.stmt.kind !== 'query' || planned.duck === null || planned.sharedFrom)
    return false;
  if (planned.sql.length <= PG_GRAMMAR_MAX_CHARS !== text.length <= PG_GRAMMAR_MAX_CHARS) return false;
  return textChecksAgree(planned, text);
}

/**
 * What planning reads from a text's own characters says of `text` what it said of `planned`'s: the composed
 * text's ceiling, the same statement text where it counts, and no internal name (a refused text is planned
 * as itself, for its refusal). Shared by the plans of comments and of compared constants (constant-sharing.ts).
 */
export function textChecksAgree(planned: PreparedStmt, text: string): boolean {
  if (planned.composedChars === undefined || planned.composedChars > composedTextLimit(text.length)) return false;
  if (!readsSameText(planned.sql, text)) return false;
  try {
    refuseInternalNames(text);
  } catch {
    return false;
  }
  return true;
}

/**
 * `text`'s plan running `planned`'s DuckDB statement: it takes over the caller's reference to
 * `planned`, and the caller owns the new plan's one.
 */
export function sharedPlan(planned: PreparedStmt, text: string, stmt: Statement): PreparedStmt {
  return {
    ...planned,
    refs: 1,
    sql: text,
    stmt,
    sharedFrom: planned,
    // held by `planned`, released with it
    leases: [],
    holds: [],
    repeatable: undefined,
    lastResultKey: undefined,
    sqlHash: undefined,
  };
}
