/**
 * EXPLAIN's head, read by the gateway and spelled anew: no byte of the client's head reaches DuckDB.
 * DuckDB cannot serialize an EXPLAIN (json_serialize_sql takes SELECT statements only), so admission
 * could not see how DuckDB reads a head; instead the head is read here as a strict list of words
 * (anything else is a syntax error), and DuckDB runs `EXPLAIN …` composed by the gateway over the
 * client's inner query, byte for byte, which DuckDB's own parse admitted as one SELECT.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { stripLeadingComments } from './split.js';

export interface ExplainHead {
  analyze: boolean;
  format: 'text' | 'json';
}

/** PostgreSQL's EXPLAIN options; those DuckDB has no use for only shape PostgreSQL's output. */
const OPTIONS = new Set([
  'analyze',
  'analyse',
  'verbose',
  'costs',
  'settings',
  'generic_plan',
  'buffers',
  'wal',
  'timing',
  'summary',
  'format',
]);
const TRUE = new Set(['true', 'on', '1', 'yes']);
const FALSE = new Set(['false', 'off', '0', 'no']);

/**
 * `EXPLAIN [ANALYZE|ANALYSE] [VERBOSE] query` or `EXPLAIN (option [value], …) query`: the head and the
 * inner query's text, or null when the statement is not an EXPLAIN. Throws 42601 for a head that is
 * not a plain list of options (a quote, a comment or any other character inside it).
 */
export function readExplain(sql: string): { head: ExplainHead; inner: string } | null {
  const body = stripLeadingComments(sql);
  if (!/^explain(?![A-Za-z0-9_$])/i.test(body)) return null;
  const words = new Words(body, 'explain'.length);
  const head: ExplainHead = { analyze: false, format: 'text' };
  if (words.peekChar() === '(') {
    words.expect('(');
    for (;;) {
      const option = words.word()?.toLowerCase();
      if (!option) throw syntax('EXPLAIN options must be words');
      if (!OPTIONS.has(option)) throw syntax(`unrecognized EXPLAIN option "${option}"`);
      const value = words.peekChar() === ',' || words.peekChar() === ')' ? null : words.word()?.toLowerCase();
      if (value === undefined) throw syntax(`invalid value for EXPLAIN option "${option}"`);
      if (option === 'format') {
        if (value === 'json' || value === 'text') head.format = value;
        else
          throw new SqlError(
            SQLSTATE.featureNotSupported,
            `EXPLAIN format "${value ?? ''}" is not supported`,
            undefined,
            'Use FORMAT TEXT or FORMAT JSON.',
          );
      } else if (value !== null && !TRUE.has(value) && !FALSE.has(value)) {
        throw syntax(`${option} requires a Boolean value`);
      } else if (option === 'analyze' || option === 'analyse') {
        head.analyze = value === null || TRUE.has(value);
      }
      const next = words.peekChar();
      words.expect(next === ',' ? ',' : ')');
      if (next !== ',') break;
    }
  } else {
    if (/^analy[sz]e$/i.test(words.peekWord() ?? '')) {
      words.word();
      head.analyze = true;
    }
    if (/^verbose$/i.test(words.peekWord() ?? '')) words.word();
  }
  return { head, inner: body.slice(words.at) };
}

/**
 * The text DuckDB runs for an admitted EXPLAIN: the gateway's head over the client's inner query.
 * DuckDB always answers in JSON: the plan a client gets is rendered from it (renderPlan), since
 * DuckDB's text boxes wrap the files a scan reads, by server path, over several lines.
 */
export function composeExplain(head: ExplainHead, inner: string): string {
  return `EXPLAIN (${head.analyze ? 'ANALYZE, ' : ''}FORMAT JSON)\n${inner}`;
}

type PlanNode = { [key: string]: unknown; children?: PlanNode[]; extra_info?: Record<string, unknown> };

/** Keys of a plan node that name server files: never shown. */
const FILE_KEYS = new Set(['Filename(s)', 'File Filters', 'Files']);

/**
 * A name qualified by one of the gateway's own databases (a remote version's frozen metadata
 * `__fdl_meta_N`, the catalog emulation `fdl_pg`): its inlined-rows tables
 * and internals are not the client's to know, so the whole name is replaced.
 */
const INTERNAL_QUALIFIED = /"?(?:__fdl_\w*|fdl_pg)"?\.(?:"[^"]*"|[\w$]+)(?:\.(?:"[^"]*"|[\w$]+))*/gi;

/** A plan value with internal database names replaced and server paths cut by `redact`. */
function planValue(text: string, redact: (text: string) => string): string {
  return redact(text.replace(INTERNAL_QUALIFIED, '(internal)'));
}

/**
 * DuckDB's JSON plan as the client asked for it: the JSON without the files scans read (format
 * json), or an indented tree of operators in the manner of PostgreSQL's text plans. Paths left in
 * any other value are cut to their last segment by `redact`.
 */
export function renderPlan(json: string, format: ExplainHead['format'], redact: (text: string) => string): string {
  let plan: unknown;
  try {
    plan = JSON.parse(json);
  } catch {
    return planValue(json, redact);
  }
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return planValue(v, redact);
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !FILE_KEYS.has(k))
          .map(([k, x]) => [k, clean(x)]),
      );
    return v;
  };
  const cleaned = clean(plan);
  if (format === 'json') return JSON.stringify(cleaned, null, 2);
  const lines: string[] = [];
  const walk = (node: PlanNode, depth: number) => {
    const name = String(node.operator_name ?? node.name ?? node.operator_type ?? '');
    const skip = name === '' || name === 'EXPLAIN_ANALYZE';
    if (!skip) {
      const facts: string[] = [];
      if (typeof node.operator_cardinality === 'number') facts.push(`rows=${node.operator_cardinality}`);
      if (typeof node.operator_timing === 'number') facts.push(`time=${(node.operator_timing * 1000).toFixed(3)} ms`);
      const pad = depth === 0 ? '' : `${' '.repeat(depth * 6 - 4)}->  `;
      lines.push(`${pad}${name.trim()}${facts.length ? `  (${facts.join(' ')})` : ''}`);
      for (const [k, v] of Object.entries(node.extra_info ?? {})) {
        const value = Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
        if (value !== '') lines.push(`${' '.repeat(depth * 6 + 2)}${k}: ${value.replace(/\s*\n\s*/g, ' ')}`);
      }
    }
    for (const c of node.children ?? []) walk(c, skip ? depth : depth + 1);
  };
  for (const root of Array.isArray(cleaned) ? cleaned : [cleaned]) walk(root as PlanNode, 0);
  if (typeof (cleaned as PlanNode).latency === 'number')
    lines.push(`Execution Time: ${(((cleaned as PlanNode).latency as number) * 1000).toFixed(3)} ms`);
  return lines.join('\n');
}

/** Plain words, parentheses and commas separated by whitespace or comments: nothing else belongs to a head. */
class Words {
  constructor(
    private readonly text: string,
    public at: number,
  ) {}
  private skip(): void {
    // Whitespace and comments between words (none of the head's bytes reach DuckDB).
    const rest = stripLeadingComments(this.text.slice(this.at));
    this.at = this.text.length - rest.length;
  }
  peekChar(): string | undefined {
    this.skip();
    return this.text[this.at];
  }
  peekWord(): string | undefined {
    this.skip();
    return /^[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_$])/.exec(this.text.slice(this.at, this.at + 64))?.[0];
  }
  word(): string | undefined {
    this.skip();
    const w = /^[A-Za-z0-9_]+(?![A-Za-z0-9_$])/.exec(this.text.slice(this.at, this.at + 64))?.[0];
    if (w) this.at += w.length;
    return w;
  }
  expect(c: string): void {
    if (this.peekChar() !== c)
      throw syntax(`syntax error in EXPLAIN options near "${this.text.slice(this.at, this.at + 16)}"`);
    this.at++;
  }
}

function syntax(message: string): SqlError {
  return new SqlError(SQLSTATE.syntaxError, message);
}
