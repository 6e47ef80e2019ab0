/**
 * Result column names as PostgreSQL gives them. DuckDB names an unaliased expression by its text
 * (`count_star()`, `CAST(id AS VARCHAR)`); PostgreSQL by a rule (FigureColname): the function's name
 * (`count`), the column under a cast (`id`), the type of a cast constant (`int4`), a keyword for a
 * few forms (`case`, `coalesce`, `array`, `exists`) and `?column?` otherwise. Clients and BI tools
 * show these names, so the gateway follows PostgreSQL.
 *
 * The rule reads the statement's one DuckDB parse tree (analysis/analysis.ts). Where DuckDB's parser
 * normalises what the rule needs (identifier case, `int4` vs `integer`, `count(*)` → count_star,
 * `extract` → date_part), the name is read back from the statement text at the node's location,
 * as PostgreSQL's grammar would have read it.
 */

type Node = Record<string, any>;

/**
 * Per top-level select-list item (the left-most SELECT of a set operation): PostgreSQL's name, or
 * null where DuckDB's name is already right (an alias) or the rule cannot be applied with certainty.
 * A star item is 'star' (expanded by DuckDB: its names are the columns'); the star of a VALUES list
 * is 'values' (PostgreSQL names its columns column1, column2, …; DuckDB col0, col1, …).
 */
export type FiguredName = string | null | 'star' | 'values';

/** Names DuckDB built from an expression are the only ones that can differ (NULL, TRUE and FALSE are
 * constants DuckDB names by their spelling; PostgreSQL calls them ?column? and bool). */
const PLAIN = /^(?!(?:null|true|false)$)[A-Za-z_][A-Za-z0-9_$]*$/i;

/**
 * The result names to send, or null to keep DuckDB's (`figured` from the statement's analysis).
 * `figuredOnly`: DuckDB ran a text the gateway named otherwise (a declared parameter's cast), so even
 * a plain name of DuckDB's gives way to the figured one.
 */
export function postgresColumnNames(
  figured: readonly FiguredName[] | undefined,
  duckdbNames: readonly string[],
  figuredOnly = false,
): string[] | null {
  if (figured?.length === 1 && figured[0] === 'values') return duckdbNames.map((_, i) => `column${i + 1}`);
  if (!figured || (!figuredOnly && duckdbNames.every((n) => PLAIN.test(n)))) return null;
  const stars = figured.filter((f) => f === 'star').length;
  // One star expands to the columns DuckDB reports between the items before and after it.
  if (
    stars > 1 ||
    (stars === 0 && figured.length !== duckdbNames.length) ||
    (stars === 1 && duckdbNames.length < figured.length - 1)
  )
    return null;
  const names = [...duckdbNames];
  const star = figured.indexOf('star');
  const after = star < 0 ? 0 : figured.length - star - 1;
  figured.forEach((f, i) => {
    if (f === 'star' || f === null) return;
    const at = star >= 0 && i > star ? duckdbNames.length - after + (i - star - 1) : i;
    names[at] = f;
  });
  return names;
}

/** PostgreSQL's names for a query node's select list (see FiguredName). */
export function figureColumnNames(node: Node | undefined, text: StatementText): FiguredName[] | undefined {
  while (node?.type === 'SET_OPERATION_NODE') node = node.left as Node | undefined;
  if (node?.type !== 'SELECT_NODE' || !Array.isArray(node.select_list)) return undefined;
  if (isValues(node, 0)) return ['values'];
  return (node.select_list as Node[]).map((item) => {
    if (item.class === 'STAR') return 'star';
    if (typeof item.alias === 'string' && item.alias !== '') return null;
    const f = figure(item, text, 0);
    return f === UNSURE ? null : (f.name ?? '?column?');
  });
}

/** The statement's text, read by DuckDB's byte offsets (query_location). */
export class StatementText {
  private bytes: Buffer | undefined;
  constructor(readonly sql: string) {}
  /** Up to 512 bytes of the text from a node's location, or null when the node has none. */
  at(location: unknown): string | null {
    if (typeof location !== 'number' || !Number.isSafeInteger(location) || location < 0) return null;
    this.bytes ??= Buffer.from(this.sql);
    if (location >= this.bytes.length) return null;
    return this.bytes.subarray(location, location + 512).toString();
  }
  /** Up to 128 bytes of the text before a node's location, or null when the node has none. */
  before(location: unknown): string | null {
    if (typeof location !== 'number' || !Number.isSafeInteger(location) || location < 0) return null;
    this.bytes ??= Buffer.from(this.sql);
    if (location > this.bytes.length) return null;
    return this.bytes.subarray(Math.max(0, location - 128), location).toString();
  }
}

/** A name and how sure the rule is of it (PostgreSQL's strength: 2 a real name, 1 a type or `case`). */
interface Figured {
  name?: string;
  strength: 0 | 1 | 2;
}
const NONE: Figured = { strength: 0 };
const UNSURE = Symbol('unsure');
const named = (name: string, strength: 1 | 2 = 2): Figured => ({ name, strength });

/** Nesting beyond this is not named (DuckDB's own expression depth limit is lower). */
const MAX_DEPTH = 500;

function figure(e: Node | undefined, text: StatementText, depth: number): Figured | typeof UNSURE {
  if (!e || typeof e !== 'object') return NONE;
  if (depth > MAX_DEPTH) return UNSURE;
  switch (e.class) {
    case 'COLUMN_REF': {
      const written = identifierPath(text.at(e.query_location));
      const names = e.column_names as string[] | undefined;
      const last = written?.[written.length - 1] ?? names?.[names.length - 1]?.toLowerCase();
      return last ? named(last) : NONE;
    }
    case 'FUNCTION':
    case 'WINDOW':
      return functionName(e, text);
    case 'CAST': {
      // TRUE and FALSE are casts of 't'/'f' without a location: PostgreSQL's constants, no name.
      if (e.cast_type?.id === 'BOOLEAN' && e.child?.class === 'CONSTANT' && text.at(e.query_location) === null)
        return NONE;
      // `date(x)`: DuckDB's parse has a cast, PostgreSQL's a call named by its function.
      const call = text.at(e.query_location) === null ? functionStyleCast(e, text) : undefined;
      if (call) return named(call);
      const inner = figure(e.child as Node, text, depth + 1);
      if (inner === UNSURE || inner.strength === 2) return inner;
      const type = castTypeName(e, text);
      return type === null ? UNSURE : named(type, 1);
    }
    case 'COLLATE':
      return figure(e.child as Node, text, depth + 1);
    case 'CASE': {
      const inner = figure(e.else_expr as Node, text, depth + 1);
      if (inner === UNSURE || inner.strength === 2) return inner;
      return named('case', 1);
    }
    case 'OPERATOR':
      switch (e.type) {
        case 'OPERATOR_COALESCE':
          return named('coalesce');
        case 'ARRAY_CONSTRUCTOR':
          return named('array');
        case 'ARRAY_EXTRACT':
        case 'ARRAY_SLICE':
          return figure((e.children as Node[] | undefined)?.[0], text, depth + 1);
        case 'STRUCT_EXTRACT': {
          const field = (e.children as Node[] | undefined)?.[1]?.value?.value;
          return typeof field === 'string' ? named(field) : UNSURE;
        }
        case 'GROUPING_FUNCTION':
          return named('grouping');
        default:
          return NONE;
      }
    case 'SUBQUERY':
      switch (e.subquery_type) {
        case 'EXISTS':
          return named('exists');
        case 'SCALAR': {
          const sub = e.subquery?.node as Node | undefined;
          if (isArraySubquery(sub)) return named('array');
          // The subquery's own first column name (alias or figured), as PostgreSQL's resname.
          const first = figureFirst(sub, text, depth + 1);
          return first === UNSURE ? UNSURE : named(first);
        }
        default:
          return NONE;
      }
    default:
      return NONE;
  }
}

/** `VALUES …`, or `SELECT * FROM (VALUES …) AS x` without column names. */
function isValues(node: Node | undefined, depth: number): boolean {
  if (node?.type !== 'SELECT_NODE' || node.select_list?.length !== 1 || !isPlainStar(node.select_list[0]) || depth > 8)
    return false;
  const from = node.from_table as Node | undefined;
  if (from?.column_name_alias?.length > 0) return false;
  return (
    from?.type === 'EXPRESSION_LIST' ||
    (from?.type === 'SUBQUERY' && isValues(from.subquery?.node as Node | undefined, depth + 1))
  );
}

function isPlainStar(item: Node): boolean {
  return (
    item.class === 'STAR' &&
    !item.relation_name &&
    !item.columns &&
    !item.expr &&
    !(item.exclude_list?.length > 0) &&
    !(item.replace_list?.length > 0) &&
    !(item.rename_list?.length > 0)
  );
}

function figureFirst(node: Node | undefined, text: StatementText, depth: number): string | typeof UNSURE {
  while (node?.type === 'SET_OPERATION_NODE') node = node.left as Node | undefined;
  const item = node?.type === 'SELECT_NODE' ? (node.select_list as Node[] | undefined)?.[0] : undefined;
  if (!item || item.class === 'STAR') return UNSURE;
  if (typeof item.alias === 'string' && item.alias !== '')
    return item.alias.toLowerCase() === item.alias ? item.alias : UNSURE;
  const f = figure(item, text, depth);
  return f === UNSURE ? UNSURE : (f.name ?? '?column?');
}

/** DuckDB parses ARRAY(subquery) as a scalar subquery of `CASE … array_agg(#1)` over the subquery. */
function isArraySubquery(sub: Node | undefined): boolean {
  const item = sub?.type === 'SELECT_NODE' ? (sub.select_list as Node[] | undefined)?.[0] : undefined;
  const agg = item?.class === 'CASE' ? (item.else_expr as Node | undefined) : undefined;
  return (
    agg?.function_name === 'array_agg' && (agg.children as Node[] | undefined)?.[0]?.class === 'POSITIONAL_REFERENCE'
  );
}

/** Functions named by PostgreSQL's grammar rather than by what is written. */
function functionName(e: Node, text: StatementText): Figured | typeof UNSURE {
  const fn = String(e.function_name ?? '');
  if (fn === 'row') return named('row'); // ROW(…) and (a, b)
  // Operators (`a LIKE b` → ~~, `a ~ b` → regexp_full_match) have no name.
  if (e.is_operator === true || !/^[A-Za-z_]/.test(fn)) return NONE;
  const at = text.at(e.query_location);
  if (at !== null) {
    const call =
      /^((?:"(?:[^"]|"")*"|[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*)(?:\s*\.\s*(?:"(?:[^"]|"")*"|[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*))*)\s*\(/.exec(
        at,
      );
    // DuckDB reads `interval '1' day` as to_days(…) located at the string: PostgreSQL's cast, named interval.
    if (!call && /^to_(?:years|months|days|hours|minutes|seconds)$/.test(fn) && at.startsWith("'"))
      return named('interval', 1);
    // An operator spelled with words: SIMILAR TO has no name, AT TIME ZONE is PostgreSQL's timezone().
    if (!call) return fn === 'timezone' ? named('timezone') : NONE;
    const path = identifierPath(call[1]!)!;
    const name = path[path.length - 1]!;
    // TRIM(…) is btrim/ltrim/rtrim in PostgreSQL's grammar.
    if (name === 'trim' && !call[1]!.startsWith('"')) {
      const mode = /^\(\s*(leading|trailing)\b/i.exec(at.slice(call[0].length - 1))?.[1]?.toLowerCase();
      return named(mode === 'leading' ? 'ltrim' : mode === 'trailing' ? 'rtrim' : 'btrim');
    }
    return named(name);
  }
  if (fn === 'count_star') return named('count');
  return fn.toLowerCase() === fn ? named(fn) : UNSURE;
}

const IDENT = /^(?:"((?:[^"]|"")*)"|([A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*))/;

/** `a."B".c` as PostgreSQL reads it (unquoted names folded to lower case), or null when not a name. */
function identifierPath(s: string | null): string[] | null {
  if (s === null) return null;
  const out: string[] = [];
  let rest = s;
  for (;;) {
    const m = IDENT.exec(rest);
    if (!m) return out.length > 0 ? out : null;
    out.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase());
    rest = rest.slice(m[0].length);
    const dot = /^\s*\.\s*/.exec(rest);
    if (!dot || rest.slice(dot[0].length).startsWith('*')) return out;
    rest = rest.slice(dot[0].length);
  }
}

/** DuckDB type → PostgreSQL's spelling, for casts whose text is not at hand (`date '…'`, `int4 '1'`). */
const DUCK_TYPE_NAMES: Record<string, string> = {
  BOOLEAN: 'bool',
  SMALLINT: 'int2',
  INTEGER: 'int4',
  BIGINT: 'int8',
  FLOAT: 'float4',
  DOUBLE: 'float8',
  DECIMAL: 'numeric',
  VARCHAR: 'text',
  DATE: 'date',
  TIME: 'time',
  'TIME WITH TIME ZONE': 'timetz',
  TIMESTAMP: 'timestamp',
  'TIMESTAMP WITH TIME ZONE': 'timestamptz',
  INTERVAL: 'interval',
  BLOB: 'bytea',
  UUID: 'uuid',
};

/** The function name of a cast written as a call (`date(x)`, `"numeric"(x)`): the word before `(` at the operand. */
function functionStyleCast(e: Node, text: StatementText): string | undefined {
  const before = text.before(e.child?.query_location) ?? '';
  const m = /(?:^|[^\w$"])(?:([A-Za-z_][\w$]*)|"((?:[^"]|"")+)")\s*\(\s*(?:\(\s*)*$/.exec(before);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].toLowerCase() : m[2]!.replace(/""/g, '"');
}

/** The type name PostgreSQL's rule gives a cast: the last name of the type as its grammar reads it. */
function castTypeName(e: Node, text: StatementText): string | null {
  const at = text.at(e.query_location);
  let typeText: string | null = null;
  if (at?.startsWith('::')) typeText = at.slice(2);
  else if (at && /^(?:try_)?cast\s*\(/i.test(at)) typeText = castTargetText(at);
  if (typeText !== null) return pgTypeName(typeText);
  const id = String(e.cast_type?.id ?? '');
  if (id === 'UNBOUND') {
    const name = e.cast_type?.type_info?.name;
    return typeof name === 'string' ? name : null;
  }
  return DUCK_TYPE_NAMES[id] ?? null;
}

/** The text after the last top-level AS of `CAST( … AS type)`, up to its closing parenthesis. */
function castTargetText(at: string): string | null {
  let depth = 0;
  let lastAs = -1;
  for (let i = at.indexOf('('); i < at.length; i++) {
    const c = at[i]!;
    if (c === "'" || c === '"') {
      const close = at.indexOf(c, i + 1);
      if (close < 0) return null;
      i = close;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return lastAs < 0 ? null : at.slice(lastAs, i);
    } else if (depth === 1 && /[Aa]/.test(c) && /^as\b/i.test(at.slice(i, i + 3)) && !/[\w$]/.test(at[i - 1] ?? ''))
      lastAs = i + 2;
  }
  return null;
}

/** PostgreSQL grammar's names for SQL-standard type spellings; any other name is used as written. */
function pgTypeName(typeText: string): string | null {
  const t = typeText.trimStart();
  const path = identifierPath(t);
  if (!path) return null;
  if (path.length > 1 || t.startsWith('"')) return path[path.length - 1]!;
  const rest = t.slice(/^[\w$\u0080-\uffff]+/.exec(t)![0].length).toLowerCase();
  const varying = /^\s*varying\b/.test(rest);
  const withZone = /^\s*(?:\(\s*\d+\s*\))?\s*with\s+time\s+zone\b/.test(rest);
  switch (path[0]) {
    case 'int':
    case 'integer':
      return 'int4';
    case 'smallint':
      return 'int2';
    case 'bigint':
      return 'int8';
    case 'real':
      return 'float4';
    case 'float': {
      const p = /^\s*\(\s*(\d+)\s*\)/.exec(rest);
      return p && Number(p[1]) <= 24 ? 'float4' : 'float8';
    }
    case 'double':
      return 'float8';
    case 'decimal':
    case 'dec':
    case 'numeric':
      return 'numeric';
    case 'boolean':
      return 'bool';
    case 'char':
    case 'character':
    case 'nchar':
      return varying ? 'varchar' : 'bpchar';
    case 'national':
      return /^\s*(?:char|character)\s+varying\b/.test(rest) ? 'varchar' : 'bpchar';
    case 'bit':
      return varying ? 'varbit' : 'bit';
    case 'timestamp':
      return withZone ? 'timestamptz' : 'timestamp';
    case 'time':
      return withZone ? 'timetz' : 'time';
    default:
      return path[0]!;
  }
}
